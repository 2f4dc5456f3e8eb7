package io.portico.proxy;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.upstream.ConnectionLimit;
import io.portico.upstream.LoopConnections;
import io.portico.upstream.UpstreamConnection;
import io.portico.upstream.UpstreamServer;
import java.util.concurrent.TimeUnit;

/**
 * One try of a request on one upstream server: its in-flight count, its {@code maxConnections} permit, its
 * connection and its timers. {@link #end} releases all of them exactly once; callbacks that arrive after it (a late
 * permit, a late connect) are dropped here so the exchange never hears of them. What happens is told to the
 * attempt's {@link Owner} (the exchange) by method, not through callbacks made per attempt: the attempt is itself
 * the permit's {@link ConnectionLimit.Grant} and the read timer's deadline. Event loop only.
 */
final class Attempt implements UpstreamConnection.Deadline, ConnectionLimit.Grant {
    /** The exchange that runs the attempt; each call comes on the event loop, never after {@link #end}. */
    interface Owner {
        /** The permit was granted: the attempt may take a connection ({@link #connect}). */
        void permitted(Attempt a);

        /** The server's queue for a permit was full, or the wait timed out. */
        void permitRefused(Attempt a);

        /** A connection is attached: the request may be sent on it. */
        void connected(Attempt a);

        void connectFailed(Attempt a, Throwable cause);

        /** Nothing was read for {@code read-timeout} (not counting time the proxy itself stopped reading). */
        void readTimedOut(Attempt a);

        /** The upstream took no request byte for {@code send-timeout}. */
        void sendTimedOut(Attempt a);
    }

    final UpstreamServer server;
    private final EventLoop loop;
    private final Owner owner;
    /** A new connection even when the pool has an idle one (a retry after a reused one failed). */
    private final boolean fresh;
    private boolean ended;
    private boolean permitDecided;
    private boolean permitHeld;
    private ConnectionLimit.Ticket ticket;
    /** Per connection: a kept connection that carries its own permit, taken before {@link Owner#permitted}. */
    private UpstreamConnection handed;
    private UpstreamConnection connection;
    private long startNanos;
    private boolean requestSent;
    private boolean readWatched;
    private long readTimeoutNanos;
    private ScheduledFuture<?> sendTimer;
    private long lastRead;
    private boolean readPaused;
    private boolean keepSlot; // handed over to the WebSocket relay
    private boolean logged; // listed in the access log's uaddr/urt

    Attempt(UpstreamServer server, EventLoop loop, Owner owner, boolean fresh) {
        this.server = server;
        this.loop = loop;
        this.owner = owner;
        this.fresh = fresh;
        server.requestStarted();
        server.meters().tried();
    }

    /**
     * Takes a permit now, or after queueing: the owner is told {@link Owner#permitted} or, when the queue is full or
     * times out, {@link Owner#permitRefused}.
     */
    void acquirePermit(LoopConnections pool) {
        if (server.limit().perConnection() && !fresh) {
            // A kept connection is a permit already: only a request that needs a new connection queues for one.
            UpstreamConnection idle = pool.pollIdle(server);
            if (idle != null) {
                handed(idle);
                return;
            }
        }
        ConnectionLimit.Ticket t = server.limit().acquire(loop, this);
        if (!permitDecided) {
            ticket = t;
        }
    }

    /** The permit, now or after queueing (the limit's call: use {@link #acquirePermit}). */
    @Override
    public void granted() {
        permitDecided = true;
        ticket = null;
        if (ended) {
            server.limit().release();
            return;
        }
        permitHeld = true;
        owner.permitted(this);
    }

    /** The permit with a connection of this loop (per connection; the limit's call, or a pooled one). */
    @Override
    public void handed(UpstreamConnection c) {
        permitDecided = true;
        ticket = null;
        if (ended) {
            c.release(true); // to the next waiter, or the pool
            return;
        }
        handed = c;
        owner.permitted(this);
    }

    @Override
    public void rejected() {
        permitDecided = true;
        ticket = null;
        if (!ended) {
            owner.permitRefused(this);
        }
    }

    /**
     * An idle pooled connection (unless the attempt is {@code fresh}) or a new one, attached to {@code listener};
     * then {@link Owner#connected} or {@link Owner#connectFailed}.
     */
    void connect(LoopConnections pool, UpstreamConnection.Listener listener) {
        startNanos = System.nanoTime();
        boolean perConnection = server.limit().perConnection();
        UpstreamConnection idle = handed != null ? handed : fresh || perConnection ? null : pool.pollIdle(server);
        handed = null;
        if (idle != null) {
            attach(idle, listener);
            owner.connected(this);
            return;
        }
        pool.connect(server, c -> {
            if (ended) {
                c.release(!perConnection); // per connection its permit went with the attempt's end: not poolable
            } else {
                if (perConnection) {
                    permitHeld = false;
                    c.takePermit();
                }
                server.meters().connected(System.nanoTime() - startNanos);
                attach(c, listener);
                owner.connected(this);
            }
        }, cause -> {
            if (!ended) {
                owner.connectFailed(this, cause);
            }
        });
    }

    private void attach(UpstreamConnection c, UpstreamConnection.Listener listener) {
        connection = c;
        c.attach(listener);
    }

    Channel channel() {
        return connection == null ? null : connection.channel();
    }

    boolean reused() {
        return connection != null && connection.reused();
    }

    boolean ended() {
        return ended;
    }

    /** From the start of the connect (or the take of a pooled connection); -1 when it never got that far. */
    long elapsedNanos() {
        return startNanos == 0 ? -1 : System.nanoTime() - startNanos;
    }

    /** True the first time only: each attempt is listed once in the access log, however it ends. */
    boolean firstLogged() {
        boolean first = !logged;
        logged = true;
        return first;
    }

    void requestSent() {
        requestSent = true;
    }

    boolean isRequestSent() {
        return requestSent;
    }

    /**
     * {@code readTimeout} between two reads, not counting time the proxy itself stopped reading; then
     * {@link Owner#readTimedOut}. The timer is the connection's (see {@link UpstreamConnection#watch}), so a request
     * on a kept-alive connection schedules none.
     */
    void armReadTimer(long timeoutNanos) {
        lastRead = System.nanoTime();
        if (readWatched || ended || connection == null) {
            return;
        }
        readWatched = true;
        readTimeoutNanos = timeoutNanos;
        connection.watch(this, timeoutNanos);
    }

    /** The read timer's check (the attempt is its own deadline: no object per request for it). */
    @Override
    public long check() {
        if (ended) {
            return 0;
        }
        long idle = System.nanoTime() - lastRead;
        if (readPaused || idle < readTimeoutNanos) {
            return readPaused ? readTimeoutNanos : readTimeoutNanos - idle;
        }
        readWatched = false;
        connection.unwatch();
        owner.readTimedOut(this);
        return 0;
    }

    void readSomething() {
        lastRead = System.nanoTime();
    }

    boolean readTimerArmed() {
        return readWatched;
    }

    void readPaused(boolean paused) {
        readPaused = paused;
    }

    boolean readPaused() {
        return readPaused;
    }

    /** The upstream stopped taking request bytes: {@link Owner#sendTimedOut} unless it takes some in time. */
    void watchSend(long timeoutNanos) {
        if (sendTimer != null || ended) {
            return;
        }
        sendTimer = loop.schedule(() -> {
            sendTimer = null;
            Channel ch = channel();
            if (!ended && ch != null && !ch.isWritable()) {
                owner.sendTimedOut(this);
            }
        }, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    void sendProgressed() {
        if (sendTimer != null) {
            sendTimer.cancel(false);
            sendTimer = null;
        }
    }

    /** An upstream connection taken over by the WebSocket relay, with what it still holds of its server. */
    record Handover(UpstreamConnection connection, Runnable releaseSlot) {}

    /**
     * Takes the connection out (for the WebSocket relay) and ends the attempt without closing it. The server's
     * permit and in-flight count stay taken, so a relayed connection counts toward {@code max-connections} (and
     * least-conn), until the relay runs {@link Handover#releaseSlot} (once; later runs do nothing).
     */
    Handover detach() {
        UpstreamConnection c = connection;
        if (readWatched && c != null) {
            c.unwatch(); // the relay has its own idle timer
        }
        connection = null;
        boolean permit = permitHeld;
        permitHeld = false;
        keepSlot = true;
        end(false);
        boolean[] released = {false};
        return new Handover(c, () -> {
            if (!released[0]) {
                released[0] = true;
                if (permit) {
                    server.limit().release();
                }
                server.requestEnded();
            }
        });
    }

    /** Releases everything once; the connection goes back to the pool when {@code reusable}, else it is closed. */
    void end(boolean reusable) {
        if (ended) {
            return;
        }
        ended = true;
        if (readWatched && connection != null) {
            connection.unwatch();
        }
        sendProgressed();
        if (connection != null) {
            connection.release(reusable);
            connection = null;
        }
        if (ticket != null) {
            ticket.cancel();
            ticket = null;
        }
        if (permitHeld) {
            permitHeld = false;
            server.limit().release();
        }
        if (!keepSlot) {
            server.requestEnded();
        }
    }
}
