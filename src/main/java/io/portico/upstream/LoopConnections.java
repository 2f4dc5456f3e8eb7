package io.portico.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamProtocol;
import io.portico.transport.Transport;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The idle keep-alive connections of one upstream pool on one event loop, at most {@code keepalive} per server,
 * each retired after {@code keepaliveTimeout}. Owned by its event loop: no locks. The most recently used connection
 * is handed out first, so surplus ones age out instead of all staying barely warm.
 */
public final class LoopConnections {
    /**
     * A status line longer than this is malformed for us (the exchange answers 502); the header fields have their
     * limits per upstream ({@code proxy-max-header-size}, {@code proxy-max-header-count}).
     */
    static final int MAX_INITIAL_LINE = 8192;
    /** The name of the connection's own handler, after the codec. */
    static final String HANDLER = "upstream";
    static final String URING_CLOSE = "uring-close";

    private final EventLoop loop;
    private final UpstreamConfig config;
    private final Transport transport;
    private final HttpDecoderConfig decoder;
    private final List<ArrayDeque<UpstreamConnection>> idle;
    /** Per server, made on its first connection: how its channels are made and the address they connect to. */
    private final ChannelFactory<? extends Channel>[] factories;
    private final SocketAddress[] remoteAddresses;
    private final int connectTimeoutMillis;
    private boolean closed;

    LoopConnections(EventLoop loop, UpstreamConfig config, int servers) {
        this.loop = loop;
        this.config = config;
        this.transport = Transport.of(loop);
        // Netty's header size counts the bytes of the field lines, line endings left out. The RFC 9112 checks are
        // Netty's defaults, set here so that a change of default cannot loosen them.
        this.decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(MAX_INITIAL_LINE)
                .setMaxHeaderSize(config.proxyMaxHeaderSize())
                .setAllowDuplicateContentLengths(false)
                .setUseRfc9112TransferEncoding(true)
                .setValidateHeaders(true)
                .setHeadersFactory(UpstreamCodec.RESPONSE_HEADERS);
        this.idle = new java.util.ArrayList<>(servers);
        @SuppressWarnings("unchecked")
        ChannelFactory<? extends Channel>[] f = new ChannelFactory[servers];
        this.factories = f;
        this.remoteAddresses = new SocketAddress[servers];
        this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis());
        for (int i = 0; i < servers; i++) {
            idle.add(new ArrayDeque<>());
        }
    }

    /**
     * An idle connection to {@code server} that is still open, or null when there is none; connections the server
     * closed while idle are dropped here even if their close has not been processed yet.
     */
    public UpstreamConnection pollIdle(UpstreamServer server) {
        ArrayDeque<UpstreamConnection> q = idle.get(server.index());
        for (UpstreamConnection c; (c = q.pollFirst()) != null; ) {
            leftIdle(c); // its idle timer stays scheduled: moving a deadline is cheaper than cancel + schedule
            if (c.channel().isActive() && !c.desynchronised()) {
                return c;
            }
            c.channel().close();
        }
        return null;
    }

    /**
     * Opens a new connection to {@code server}; {@code connected} gets it, or {@code failed} the failure (the channel
     * is then closed).
     *
     * <p>Without a {@code Bootstrap}: in front of an app server that closes every connection this runs once per
     * request, and a Bootstrap copies its option and attribute maps into arrays, adds and removes a
     * {@code ChannelInitializer} (tracked in a concurrent map), looks up an address resolver and defers the connect
     * to a task, each time. Here the options are set and the handlers added straight on the new channel, and the
     * connect is issued as soon as the (same-thread) registration is done. TCP_NODELAY is not set here: the
     * NIO and io_uring socket channels enable it when made, the epoll one before its second write
     * ({@code transport.UpstreamEpollChannel}), and setting it again would cost a system call per connection.
     */
    public void connect(UpstreamServer server, Consumer<UpstreamConnection> connected, Consumer<Throwable> failed) {
        ChannelFactory<? extends Channel> factory = factory(server);
        Channel ch;
        try {
            ch = factory.newChannel(); // the socket(2): fails when out of descriptors
        } catch (Throwable t) {
            failed.accept(t);
            return;
        }
        ch.config().setAutoRead(false);
        ch.config().setConnectTimeoutMillis(0); // the connection's own timer watches the connect: see watchConnect
        UpstreamConnection c = new UpstreamConnection(ch, server, this);
        addHandlers(ch.pipeline(), server, c);
        if (transport.readsBeforeRegistration()) {
            armReadBeforeRegistration(ch);
        }
        loop.register(ch).addListener(registered -> {
            if (!registered.isSuccess()) {
                if (ch.isRegistered()) {
                    ch.close();
                } else {
                    ch.unsafe().closeForcibly();
                }
                failed.accept(registered.cause());
                return;
            }
            SocketAddress remote = remoteAddresses[server.index()];
            ChannelPromise connect = ch.newPromise();
            watchConnect(c, connect, remote);
            ch.connect(remote, connect).addListener(done -> {
                if (done.isSuccess()) {
                    c.unwatch(); // the timer stays armed for the request's read deadline
                    connected.accept(c);
                } else {
                    c.cancelDeadlineTimer(); // a channel that never was active hears no channelInactive
                    ch.close();
                    failed.accept(done.cause());
                }
            });
        });
    }

    /**
     * The connect timeout on the connection's deadline timer, not Netty's own: Netty schedules a timer of its own
     * for each pending connect and cancels it when the connect completes, and the request then arms the
     * connection's timer for its read deadline. In front of an app server that closes every connection that was two
     * timers scheduled and cancelled per request; this way it is one, which the read deadline moves instead of
     * replacing (see {@link UpstreamConnection#watch}). On expiry the connect fails as Netty fails it, with a
     * {@link ConnectTimeoutException} and the channel closed (by the listener of the connect).
     */
    private void watchConnect(UpstreamConnection c, ChannelPromise connect, SocketAddress remote) {
        if (connectTimeoutMillis <= 0) {
            return; // no limit, as Netty's 0 means (the configuration asks for at least 1ms)
        }
        c.watch(() -> {
            if (!connect.isDone()) {
                connect.tryFailure(new ConnectTimeoutException(
                        "connection timed out after " + connectTimeoutMillis + " ms: " + remote));
            }
            return 0;
        }, TimeUnit.MILLISECONDS.toNanos(connectTimeoutMillis));
    }

    /**
     * Every new connection is read right after its request is written, and an epoll channel's first read adds
     * EPOLLIN to its interest with an {@code epoll_ctl(MOD)} of its own. Asked for before the channel is registered,
     * the read only marks EPOLLIN in the channel's interest set, and Netty's first {@code epoll_ctl(ADD)} (at the
     * connect) carries it: one system call less per connection ({@link Transport#readsBeforeRegistration}). Netty's public channel API cannot do this (a
     * pipeline read needs a registered channel), so it goes through {@code Channel.Unsafe#beginRead} on the loop
     * that owns the channel. Nothing is read before the request: nothing arrives before it; an error on the socket
     * is reported to the channel with or without EPOLLIN.
     */
    private static void armReadBeforeRegistration(Channel ch) {
        ch.unsafe().beginRead();
    }

    /** The channel factory of {@code server}, made on its first connection (with its address, reused after). */
    private ChannelFactory<? extends Channel> factory(UpstreamServer server) {
        ChannelFactory<? extends Channel> f = factories[server.index()];
        if (f == null) {
            f = transport.upstreamChannel(server.socketAddress());
            remoteAddresses[server.index()] = transport.connectAddress(server.socketAddress());
            factories[server.index()] = f;
        }
        return f;
    }

    private void addHandlers(ChannelPipeline p, UpstreamServer server, UpstreamConnection c) {
        // An app that stops reading a request body would otherwise hold the connection's close for ever.
        transport.addCloseHandler(p, URING_CLOSE);
        if (config.protocol() == UpstreamProtocol.UWSGI) {
            UwsgiCodec.addTo(p, decoder, config.proxyMaxHeaderCount());
        } else if (config.protocol() == UpstreamProtocol.FASTCGI) {
            FastCgiCodec.addTo(p, config.proxyMaxHeaderSize(), config.proxyMaxHeaderCount(), config.keepalive() > 0,
                    server.errorLog());
        } else {
            UpstreamCodec.addTo(p, decoder, config.proxyMaxHeaderCount());
        }
        p.addLast(HANDLER, c.new Handler());
    }

    void offer(UpstreamConnection c) {
        ConnectionLimit limit = c.server().limit();
        if (c.holdsPermit && !closed) {
            switch (limit.freed(loop, c)) {
                case HANDED:
                    return;
                case PASSED:
                    c.holdsPermit = false; // the waiter on another loop has it now
                    c.channel().close();
                    return;
                case IDLE:
                    break;
            }
        }
        ArrayDeque<UpstreamConnection> q = idle.get(c.server().index());
        if (closed || q.size() >= config.keepalive()) {
            c.channel().close();
            return;
        }
        q.addFirst(c);
        c.idle = true;
        if (c.holdsPermit) {
            limit.idleAdded();
        }
        c.idleSinceNanos = System.nanoTime();
        if (c.idleTimer == null) {
            armIdleTimer(c, config.keepaliveTimeout().toNanos());
        }
        // With AUTO_READ off an idle socket is not read, so ask for one read: a close (or stray bytes) is then seen.
        c.channel().read();
        if (c.holdsPermit && limit.hasWaiters()) {
            // A request queued between freed and idleAdded may have seen no idle connection to reclaim.
            reclaimIdle(c.server());
        }
    }

    /**
     * Per connection: closes the least recently used idle connection to {@code server} while requests wait for a
     * permit, so that its permit (and the app's child it held) goes to the oldest of them. Run on this loop, asked by
     * a request queued on another ({@link ConnectionLimit.Reclaimer}).
     */
    void reclaimIdle(UpstreamServer server) {
        if (!server.limit().hasWaiters()) {
            return;
        }
        UpstreamConnection c = idle.get(server.index()).pollLast();
        if (c != null) {
            leftIdle(c);
            cancelIdleTimer(c);
            c.channel().close(); // its channelInactive releases the permit to the oldest waiter
        }
    }

    /** A connection taken out of its idle queue. */
    private static void leftIdle(UpstreamConnection c) {
        c.idle = false;
        if (c.holdsPermit) {
            c.server().limit().idleRemoved();
        }
    }

    /**
     * One timer per connection, scheduled when it first goes idle and left running while it is in use: a request
     * costs no timer operations. When it fires it closes the connection if it has been idle for the whole
     * {@code keepaliveTimeout}, waits for the rest if it went idle later, and stops if the connection is in use
     * (the next {@link #offer} arms it again).
     */
    private void armIdleTimer(UpstreamConnection c, long delayNanos) {
        c.idleTimer = loop.schedule(() -> idleTimerFired(c), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void idleTimerFired(UpstreamConnection c) {
        c.idleTimer = null;
        if (!c.idle) {
            return;
        }
        long left = config.keepaliveTimeout().toNanos() - (System.nanoTime() - c.idleSinceNanos);
        if (left > 0) {
            armIdleTimer(c, left);
            return;
        }
        idle.get(c.server().index()).remove(c);
        leftIdle(c);
        c.channel().close();
    }

    void remove(UpstreamConnection c) {
        if (idle.get(c.server().index()).remove(c)) {
            leftIdle(c);
        }
        c.idle = false;
        cancelIdleTimer(c);
    }

    private static void cancelIdleTimer(UpstreamConnection c) {
        if (c.idleTimer != null) {
            c.idleTimer.cancel(false);
            c.idleTimer = null;
        }
    }

    /** Idle connections to {@code server} on this loop, for tests and stats. */
    public int idleCount(UpstreamServer server) {
        return idle.get(server.index()).size();
    }

    void closeAll() {
        closed = true;
        for (ArrayDeque<UpstreamConnection> q : idle) {
            for (UpstreamConnection c; (c = q.pollFirst()) != null; ) {
                leftIdle(c);
                cancelIdleTimer(c);
                c.channel().close();
            }
        }
    }

    EventLoop loop() {
        return loop;
    }
}
