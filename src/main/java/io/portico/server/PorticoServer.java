package io.portico.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.portico.config.ConfigLoader;
import io.portico.config.InvalidConfigException;
import io.portico.config.ListenAddress;
import io.portico.config.PorticoConfig;
import io.portico.exchange.HttpDates;
import io.portico.metrics.AccessLog;
import io.portico.metrics.PorticoMetrics;
import io.portico.transport.Transport;
import java.io.IOException;
import java.net.BindException;
import java.net.ServerSocket;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running Portico: its event loops, listeners and the modules behind its locations. {@link #start} returns
 * once every listener is bound; {@link #stop} drains gracefully.
 */
public final class PorticoServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PorticoServer.class);

    private final Transport transport;
    private final MultiThreadIoEventLoopGroup group;
    private final ServerState state = new ServerState();
    private final AccessLog accessLog;
    private final PorticoMetrics metrics = new PorticoMetrics();
    private final ServerParts parts;
    /** The configuration requests are served by now: one read per connection and per request, one write a reload. */
    private final AtomicReference<Generation> current = new AtomicReference<>();
    /** A reload's generation while its new listeners are bound, before it is current: they serve with it. */
    private volatile Generation installing;
    /** The bound sockets of each listener (several with SO_REUSEPORT), in configuration order. */
    private final Map<ListenerKey, List<Channel>> listeners = new LinkedHashMap<>();
    /** Drains removed listeners and closes what an older generation did not hand on: never an event loop. */
    private final ScheduledExecutorService retirements = Executors.newSingleThreadScheduledExecutor(
            new DefaultThreadFactory("portico-reload", true));
    private final List<Runnable> pendingRetirements = new ArrayList<>();
    private boolean stopped;

    private PorticoServer(PorticoConfig config, Transport transport) throws ListenException {
        this.transport = transport;
        this.group = new MultiThreadIoEventLoopGroup(
                config.workers(), new DefaultThreadFactory("portico-loop"), transport.ioHandlerFactory());
        this.accessLog = AccessLog.create(config.accessLog());
        this.parts = new ServerParts(state, new ConnectionLimiter(config.limits().maxConnections()), accessLog,
                metrics, current::get);
        try {
            current.set(Generation.build(config, null, parts, group, transport));
        } catch (ListenException | IllegalStateException e) {
            // a module that cannot start (a shared rate-limit store out of reach), or a TLS context
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            metrics.close();
            accessLog.close();
            retirements.shutdownNow();
            throw e instanceof ListenException l ? l : new ListenException(e.getMessage(), e);
        }
        current.get().targets.bindMetrics();
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
        // The Date header's formatter loads the JDK's locale data on its first use (30-40 ms, about 1 MB kept): here,
        // not on the first request.
        HttpDates.now();
        PorticoServer server = new PorticoServer(config, transport);
        try {
            for (ListenerKey key : server.current.get().listenerKeys()) {
                server.listeners.put(key, server.bind(key));
            }
        } catch (ListenException e) {
            server.close();
            throw e;
        }
        server.current.get().tls().forEach((address, tls) -> log.info("TLS on {}: {}", address, tls));
        config.listen().stream().filter(l -> l.http2() && l.tls().isEmpty())
                .forEach(l -> log.info("h2c (HTTP/2 with prior knowledge) and HTTP/1.1 on {}", l.address()));
        config.listen().forEach(l -> l.proxyProtocol()
                .ifPresent(p -> log.info("PROXY protocol on {} from {}", l.address(), p.trusted())));
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

    /**
     * Puts {@code next} in place of the running configuration, as {@code docs/deploy.md} describes: new requests
     * (on new and open connections) are served by it at once, requests in flight finish on the old one; listeners
     * whose address is unchanged keep their sockets, new ones are bound, removed ones stop accepting and their
     * connections close once idle; zones and pools whose definition is unchanged are taken over with their state.
     * On failure (a port in use, a certificate that cannot be read) nothing changes and {@link ListenException}
     * says why. Blocks the calling thread, which must not be an event loop.
     */
    public synchronized ReloadReport reload(PorticoConfig next) throws ListenException {
        if (stopped) {
            throw new ListenException("stopping: reload refused", null);
        }
        Generation old = current.get();
        Generation g = Generation.build(next, old, parts, group, transport);
        Map<ListenerKey, List<Channel>> added = new LinkedHashMap<>();
        installing = g;
        try {
            for (ListenerKey key : g.listenerKeys()) {
                if (!listeners.containsKey(key)) {
                    added.put(key, bind(key));
                }
            }
        } catch (ListenException e) {
            added.values().forEach(chs -> chs.forEach(this::closeListener));
            g.targets.closeExcept(old.targets);
            throw e;
        } finally {
            installing = null;
        }
        List<ListenerKey> removed = new ArrayList<>();
        for (ListenerKey a : listeners.keySet()) {
            if (g.listener(a) == null) {
                removed.add(a);
            }
        }
        List<Channel> closing = new ArrayList<>();
        for (ListenerKey a : removed) {
            for (Channel ch : listeners.remove(a)) {
                // before the swap: no connection is accepted there that the new generation has no listener for
                state.listenerClosed(ch);
                closeListener(ch);
                closing.add(ch);
            }
        }
        listeners.putAll(added);
        current.set(g);
        g.targets.bindMetrics();
        parts.connectionLimiter().max(next.limits().maxConnections());
        ReloadReport report = ReloadReport.of(old, g, added.keySet(), removed);
        // What the old generation did not hand on closes once its requests have had shutdown-timeout to finish.
        Runnable retire = () -> old.targets.closeExcept(g.targets);
        pendingRetirements.add(retire);
        retirements.schedule(() -> runRetirement(retire), next.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS);
        if (!closing.isEmpty()) {
            retirements.execute(() -> drainRemoved(closing, next.shutdownTimeout()));
        }
        return report;
    }

    /**
     * What SIGHUP and {@code portico reload} do: reads and checks {@code file} as {@code portico check} does, off
     * the event loops; with problems, logs each as check prints it ({@code file:line: key: ...}) and keeps the
     * running configuration; else {@link #reload(PorticoConfig)} and logs what changed.
     *
     * @return whether the new configuration is in place
     */
    public boolean reloadFrom(Path file, Optional<Path> prefix) {
        long start = System.nanoTime();
        PorticoConfig next;
        try {
            next = ConfigLoader.load(file, prefix);
        } catch (InvalidConfigException e) {
            log.error("reload: configuration has {} {}; the running configuration stays", e.problems().size(),
                    e.problems().size() == 1 ? "problem" : "problems");
            e.problems().forEach(p -> log.error("{}", p));
            return false;
        }
        try {
            ReloadReport report = reload(next);
            log.info("reload: {} in place in {} ms", file, (System.nanoTime() - start) / 1_000_000);
            report.lines().forEach(line -> log.info("reload: {}", line));
            return true;
        } catch (ListenException | RuntimeException e) {
            log.error("reload: {}; the running configuration stays", e.getMessage());
            return false;
        }
    }

    private synchronized void runRetirement(Runnable retire) {
        if (pendingRetirements.remove(retire)) {
            retire.run();
        }
    }

    /** The connections of listeners a reload removed: closed once idle, the rest after shutdown-timeout. */
    private void drainRemoved(List<Channel> closed, Duration timeout) {
        drain(ch -> closed.contains(ch.parent()), timeout);
        closed.forEach(state::listenerDrained);
    }

    /**
     * Closes the client connections {@code which} selects as each becomes idle (an HTTP/1.1 one between
     * responses; one with no keep-alive stage, HTTP/2, at once), then whatever is left after {@code timeout}.
     */
    private void drain(Predicate<Channel> which, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && state.clients().stream().anyMatch(which)) {
            for (Channel ch : state.clients()) {
                if (which.test(ch)) {
                    ch.eventLoop().execute(() -> {
                        KeepAliveHandler k = ch.pipeline().get(KeepAliveHandler.class);
                        if (k == null || k.idle()) {
                            ch.close();
                        }
                    });
                }
            }
            sleep(Duration.ofMillis(50));
            if (Thread.currentThread().isInterrupted()) {
                break; // stop() took over
            }
        }
        state.clients().stream().filter(which).forEach(Channel::close);
    }

    /** The event loops' transport: {@code epoll}, {@code io_uring} or {@code nio}. */
    public String transport() {
        return transport.name();
    }

    /**
     * Binds one address: one socket, or with SO_REUSEPORT one per event loop so the kernel spreads connections.
     * Its connections are built by the generation current when each is accepted ({@link ListenerDispatch}).
     */
    private List<Channel> bind(ListenerKey key) throws ListenException {
        ListenAddress address = key.address();
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .option(ChannelOption.SO_BACKLOG, 4096)
                .option(ChannelOption.SO_REUSEADDR, true)
                // A client that shuts its sending side after its request still gets the response (RFC 9112 9.6).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ListenerDispatch(key, this::initializer));
        // no TCP_NODELAY child option: every transport's accepted channels have it on by default (tested)
        boolean reusePort = transport.reusePort() != null;
        int perAddress = reusePort ? group.executorCount() : 1;
        if (reusePort) {
            b.option(transport.reusePort(), true);
        }
        InetSocketAddress target = address.toSocketAddress();
        if (reusePort && target.getPort() != 0) {
            ensureFree(target, address);
        }
        List<Channel> bound = new ArrayList<>();
        try {
            for (int i = 0; i < perAddress; i++) {
                Channel ch = bindOne(b, target, address);
                parts.connectionLimiter().addListener(ch);
                bound.add(ch);
                // Port 0: the kernel chose a port; the other loops' listeners share that one.
                target = (InetSocketAddress) ch.localAddress();
            }
        } catch (ListenException e) {
            bound.forEach(this::closeListener);
            throw e;
        }
        return bound;
    }

    /** How connections accepted on {@code address} are built now; null when no generation has it (being closed). */
    private ClientChannelInitializer initializer(ListenerKey key) {
        ClientChannelInitializer i = current.get().listener(key);
        Generation next = installing;
        return i != null || next == null ? i : next.listener(key);
    }

    private void closeListener(Channel listener) {
        parts.connectionLimiter().removeListener(listener);
        listener.close().awaitUninterruptibly();
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
    public synchronized List<InetSocketAddress> localAddresses() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (Channel ch : listeners.values().stream().flatMap(List::stream).toList()) {
            InetSocketAddress a = (InetSocketAddress) ch.localAddress();
            if (!out.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    /**
     * The open client connections (HTTP/2 ones as their parent channel). Package-private for the tests' {@code
     * ServerProbe}, which reads a connection's state on its loop where no metric shows it (the bytes queued for a
     * slow client).
     */
    Iterable<Channel> clientChannels() {
        return state.clients();
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
        PorticoConfig config = current.get().config;
        state.startDraining();
        if (!config.drainDelay().isZero()) {
            // Health checks now fail while everything else is still served: a balancer stops sending first.
            log.info("draining: health locations answer 503; listeners close in {} ms (drain-delay)",
                    config.drainDelay().toMillis());
            sleep(config.drainDelay());
        }
        listeners.values().forEach(chs -> chs.forEach(this::closeListener));
        drain(ch -> true, config.shutdownTimeout());
        state.clients().close().awaitUninterruptibly();
        retirements.shutdownNow();
        pendingRetirements.forEach(Runnable::run);
        pendingRetirements.clear();
        current.get().targets.close();
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
