package io.portico.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.portico.config.ListenAddress;
import io.portico.config.ListenerConfig;
import io.portico.config.PorticoConfig;
import io.portico.metrics.AccessLog;
import io.portico.metrics.PorticoMetrics;
import io.portico.route.HostRouter;
import io.portico.tls.ServerTls;
import io.portico.tls.TlsUnavailableException;
import java.io.IOException;
import java.net.BindException;
import java.net.ServerSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Portico: its event loops, listeners and the modules behind its locations. {@link #start} returns
 * once every listener is bound; {@link #stop} drains gracefully.
 */
public final class PorticoServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PorticoServer.class);

    private final PorticoConfig config;
    private final Transport transport;
    private final EventLoopGroup group;
    private final ServerState state = new ServerState();
    private final List<Channel> listeners = new ArrayList<>();
    private final AccessLog accessLog;
    private final PorticoMetrics metrics = new PorticoMetrics();
    private final Targets targets;
    private boolean stopped;

    private PorticoServer(PorticoConfig config, Transport transport) {
        this.config = config;
        this.transport = transport;
        this.group = new MultiThreadIoEventLoopGroup(
                config.workers(), new DefaultThreadFactory("portico-loop"), transport.ioHandlerFactory());
        this.accessLog = AccessLog.create(config.accessLog());
        try {
            this.targets = Targets.start(config, group, metrics, state);
        } catch (IllegalStateException e) { // a module that cannot start: a shared rate-limit store out of reach
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            metrics.close();
            accessLog.close();
            throw e;
        }
    }

    /** Binds every listener of {@code config}; a port in use fails with {@link ListenException}. */
    public static PorticoServer start(PorticoConfig config) throws ListenException {
        Transport transport;
        try {
            transport = Transport.select(config.transport(), log::info);
        } catch (Transport.TransportUnavailableException e) {
            throw new ListenException("transport = " + config.transport().configName() + ": " + e.getMessage()
                    + "; transport = auto picks epoll or NIO", e);
        }
        PorticoServer server;
        try {
            server = new PorticoServer(config, transport);
        } catch (IllegalStateException e) {
            throw new ListenException(e.getMessage(), e);
        }
        try {
            server.bind();
        } catch (ListenException e) {
            server.close();
            throw e;
        }
        log.info("portico listening on {} ({} transport, {} event loops)",
                server.localAddresses(), transport.name(), config.workers());
        HeapAdvice heap = HeapAdvice.of(config);
        long maxHeap = Runtime.getRuntime().maxMemory();
        if (!heap.fits(maxHeap)) {
            log.warn("the heap's maximum ({} MiB) is below what this configuration needs: {}; raise -Xmx"
                    + " (JAVA_OPTS), or lower the zones' max-clients", maxHeap >> 20, heap);
        }
        return server;
    }

    /** The event loops' transport: {@code epoll}, {@code io_uring} or {@code nio}. */
    public String transport() {
        return transport.name();
    }

    private void bind() throws ListenException {
        // One router for every listener, unless some host answers on only some of them.
        boolean perListener = config.hosts().stream().anyMatch(h -> !h.listen().isEmpty() || h.isDefault());
        HostRouter shared = perListener ? null
                : HostRouter.build(config.locations(), config.hosts(), null, targets::responder);
        ConnectionLimiter limiter = new ConnectionLimiter(config.limits().maxConnections());
        ClientAddresses addresses = new ClientAddresses(config.trustedProxies());
        ServerBootstrap plain = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                // A client that shuts its sending side after its request still gets the response (RFC 9112 9.6).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        // no TCP_NODELAY child option: every transport's accepted channels have it on by default (tested)
        if (shared != null) {
            plain.childHandler(new ClientChannelInitializer(config.limits(), state, limiter, addresses, accessLog,
                    shared, targets::newRateLimitHandler, targets::meters, metrics, null, null));
        }
        // With SO_REUSEPORT every event loop gets its own listener and the kernel spreads connections.
        boolean reusePort = transport.reusePort() != null;
        int perAddress = reusePort ? config.workers() : 1;
        if (reusePort) {
            plain.option(transport.reusePort(), true);
        }
        for (ListenerConfig listener : config.listen()) {
            ListenAddress address = listener.address();
            ServerBootstrap b = plain;
            HostRouter router = perListener
                    ? HostRouter.build(config.locations(), config.hosts(), address, targets::responder) : shared;
            if (listener.tls().isPresent() || listener.http2() || listener.proxyProtocol().isPresent() || perListener) {
                ServerTls tls = listener.tls().isPresent() ? tls(listener) : null;
                if (tls != null) {
                    log.info("TLS on {}: {}", address, tls);
                } else if (listener.http2()) {
                    log.info("h2c (HTTP/2 with prior knowledge) and HTTP/1.1 on {}", address);
                }
                listener.proxyProtocol().ifPresent(p -> log.info("PROXY protocol on {} from {}", address, p.trusted()));
                b = plain.clone().childHandler(new ClientChannelInitializer(
                        config.limits(), state, limiter, addresses, accessLog, router, targets::newRateLimitHandler,
                        targets::meters, metrics, tls, listener.http2() ? config.http2() : null,
                        listener.proxyProtocol().orElse(null)));
            }
            InetSocketAddress target = address.toSocketAddress();
            if (reusePort && target.getPort() != 0) {
                ensureFree(target, address);
            }
            for (int i = 0; i < perAddress; i++) {
                Channel ch = bindOne(b, target, address);
                limiter.addListener(ch);
                listeners.add(ch);
                // Port 0: the kernel chose a port; the other loops' listeners share that one.
                target = (InetSocketAddress) ch.localAddress();
            }
        }
    }

    private static ServerTls tls(ListenerConfig listener) throws ListenException {
        try {
            return ServerTls.of(listener.tls().get(), listener.http2());
        } catch (SSLException | TlsUnavailableException e) {
            throw new ListenException("cannot listen on " + listener + ": " + e.getMessage(), e);
        }
    }

    /**
     * SO_REUSEPORT would let this server share a port with another process that also set it (a second Portico,
     * an nginx with reuseport) and silently split its traffic: a plain bind first makes "in use" an error.
     */
    private static void ensureFree(InetSocketAddress target, ListenAddress address) throws ListenException {
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(target);
        } catch (IOException e) {
            String why = e instanceof BindException ? "address already in use" : String.valueOf(e.getMessage());
            throw new ListenException("cannot listen on " + address + ": " + why, e);
        }
    }

    private Channel bindOne(ServerBootstrap b, InetSocketAddress target, ListenAddress address) throws ListenException {
        ChannelFuture f = b.bind(target).awaitUninterruptibly();
        if (!f.isSuccess()) {
            Throwable cause = f.cause();
            String why = cause instanceof BindException || String.valueOf(cause.getMessage()).contains("in use")
                    ? "address already in use" : String.valueOf(cause.getMessage());
            throw new ListenException("cannot listen on " + address + ": " + why, cause);
        }
        return f.channel();
    }

    /** The bound addresses, one per configured address (ports resolved when 0 was asked). */
    public List<InetSocketAddress> localAddresses() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (Channel ch : listeners) {
            InetSocketAddress a = (InetSocketAddress) ch.localAddress();
            if (!out.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * Stops accepting, lets in-flight requests finish for up to {@code shutdown-timeout} (idle keep-alive
     * connections are closed at once; busy ones get {@code Connection: close} on their response), then closes
     * everything. Blocks the calling thread, which must not be an event loop.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        state.startDraining();
        if (!config.drainDelay().isZero()) {
            // Health checks now fail while everything else is still served: a balancer stops sending first.
            log.info("draining: health locations answer 503; listeners close in {} ms (drain-delay)",
                    config.drainDelay().toMillis());
            sleep(config.drainDelay());
        }
        for (Channel l : listeners) {
            l.close().awaitUninterruptibly();
        }
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        while (state.openConnections() > 0 && System.nanoTime() < deadline) {
            for (Channel ch : state.clients()) {
                ch.eventLoop().execute(() -> {
                    KeepAliveHandler k = ch.pipeline().get(KeepAliveHandler.class);
                    if (k == null || k.idle()) {
                        ch.close();
                    }
                });
            }
            sleep(Duration.ofMillis(50));
        }
        state.clients().close().awaitUninterruptibly();
        targets.close();
        metrics.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        accessLog.close();
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop();
    }
}
