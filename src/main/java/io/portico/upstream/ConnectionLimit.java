package io.portico.upstream;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code maxConnections} of one server across every event loop: a permit per request in flight. Requests beyond it
 * wait for at most {@code queueTimeout}, at most {@code maxQueue} of them per upstream (the count is shared by the
 * servers of a pool); a freed permit is handed to the oldest waiter on that waiter's own event loop.
 *
 * <p>Per connection (a FastCGI upstream that keeps connections): a permit is an open connection, busy or idle,
 * because a PHP-FPM child serves one connection until it closes and an idle kept connection holds its child. The
 * permit then moves with the connection: to the request that takes it from its loop's pool, back to the pool with
 * it, and is released only when the connection closes. A connection whose request ends while requests wait goes to
 * the oldest of them ({@link #freed}): as it is when the waiter is on its loop, else it is closed and its permit
 * passes to the waiter's loop. A request that queues while another loop holds an idle connection has that loop
 * close it ({@link Reclaimer}): no connection waits in the app's backlog behind a child held by an idle one.
 */
public final class ConnectionLimit {
    /** Told on the waiter's event loop whether it got a permit. */
    public interface Grant {
        void granted();

        void rejected();

        /** Per connection: the permit comes with {@code connection}, an open one of the waiter's own loop. */
        void handed(UpstreamConnection connection);
    }

    /** Per connection: has the loops other than {@code waiterLoop} close an idle connection to the server, if any. */
    interface Reclaimer {
        void reclaim(EventLoop waiterLoop);
    }

    /** What {@link #freed} did with a connection whose request ended. */
    enum Freed {
        /** No request waits: pool it. */
        IDLE,
        /** Handed to a waiter of its loop. */
        HANDED,
        /** The oldest waiter is on another loop and has the permit: close the connection, and release nothing. */
        PASSED
    }

    /** A pending acquisition; {@link #cancel()} when the request goes away first. */
    public interface Ticket {
        void cancel();
    }

    static final Ticket GRANTED = () -> {};
    /** How many times a waiter may see a later one of the connection's own loop take a connection before it. */
    static final int MAX_SKIPS = 8;

    private final int max;
    private final int maxQueue;
    private final Duration queueTimeout;
    private final AtomicInteger inUse = new AtomicInteger();
    private final AtomicInteger queued; // shared by the pool's servers
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();
    private final boolean perConnection;
    /** Per connection: idle connections in the loops' pools, each holding a permit (a hint to reclaim one). */
    private final AtomicInteger idle = new AtomicInteger();
    private volatile Reclaimer reclaimer = waiterLoop -> {};

    ConnectionLimit(int max, int maxQueue, Duration queueTimeout, AtomicInteger queued) {
        this(max, maxQueue, queueTimeout, queued, false);
    }

    /** @param perConnection a permit per open connection rather than per request (see the class comment) */
    ConnectionLimit(int max, int maxQueue, Duration queueTimeout, AtomicInteger queued, boolean perConnection) {
        this.perConnection = perConnection && max > 0;
        this.max = max;
        this.maxQueue = maxQueue;
        this.queueTimeout = queueTimeout;
        this.queued = queued;
    }

    /** Calls {@code grant} now when a permit is free, else later (or rejects when the queue is full). */
    public Ticket acquire(EventLoop loop, Grant grant) {
        if (max <= 0 || tryAcquire()) {
            grant.granted();
            return GRANTED;
        }
        if (queued.incrementAndGet() > maxQueue) {
            queued.decrementAndGet();
            grant.rejected();
            return GRANTED;
        }
        Waiter waiter = new Waiter(loop, grant);
        waiters.add(waiter);
        waiter.timer = loop.schedule(waiter::timedOut, queueTimeout.toNanos(), TimeUnit.NANOSECONDS);
        // A permit freed between tryAcquire and add found no waiter; take it now so the waiter cannot starve.
        if (tryAcquire()) {
            if (waiter.claim()) {
                waiter.timer.cancel(false);
                grant.granted();
            } else {
                release();
            }
        } else if (perConnection && idle.get() > 0) {
            // Published before this read (the waiter is queued): a loop that pools a connection from now on sees it.
            reclaimer.reclaim(loop);
        }
        return waiter;
    }

    /** Whether a permit is an open connection rather than a request in flight. */
    public boolean perConnection() {
        return perConnection;
    }

    void reclaimer(Reclaimer r) {
        this.reclaimer = r;
    }

    /**
     * Per connection, on {@code loop}: the request on {@code c} ended and the connection could be kept. A waiter
     * gets it: {@link Freed#HANDED} to the oldest one on {@code loop} (told in a task of the loop, not inside the
     * ending request), {@link Freed#PASSED} (its permit; the connection is closed) to the oldest of all when none
     * waits on {@code loop} or when that one was passed over {@link #MAX_SKIPS} times already. Strict order would
     * pass every other connection across loops under a steady queue, a connect and a close each time, which is
     * what keeping connections saves; no order at all could leave one loop's requests waiting for their 503.
     */
    Freed freed(EventLoop loop, UpstreamConnection c) {
        for (; ; ) {
            Waiter oldest = null;
            Waiter mine = null;
            for (Waiter w : waiters) {
                if (w.done.get()) {
                    continue;
                }
                if (oldest == null) {
                    oldest = w;
                }
                if (w.loop == loop) {
                    mine = w;
                    break;
                }
                if (oldest.skipped.get() >= MAX_SKIPS) {
                    break; // its turn: no later waiter of this loop goes first
                }
            }
            if (oldest == null) {
                return Freed.IDLE;
            }
            Waiter chosen = mine != null && (mine == oldest || oldest.skipped.get() < MAX_SKIPS) ? mine : oldest;
            if (!chosen.claim()) {
                continue; // it timed out or went away meanwhile
            }
            waiters.remove(chosen);
            if (chosen != oldest) {
                oldest.skipped.incrementAndGet();
            }
            if (chosen.loop == loop) {
                chosen.loop.execute(() -> {
                    chosen.timer.cancel(false);
                    chosen.grant.handed(c);
                });
                return Freed.HANDED;
            }
            chosen.loop.execute(() -> {
                chosen.timer.cancel(false);
                chosen.grant.granted();
            });
            return Freed.PASSED;
        }
    }

    /** Per connection: a connection holding a permit went idle in a loop's pool, or left it. */
    void idleAdded() {
        idle.incrementAndGet();
    }

    void idleRemoved() {
        idle.decrementAndGet();
    }

    /** Whether requests wait for a permit (a hint: it may change the next moment). */
    boolean hasWaiters() {
        return !waiters.isEmpty();
    }

    private boolean tryAcquire() {
        for (; ; ) {
            int n = inUse.get();
            if (n >= max) {
                return false;
            }
            if (inUse.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    public void release() {
        if (max <= 0) {
            return;
        }
        for (Waiter w; (w = waiters.poll()) != null; ) {
            if (w.claim()) {
                Waiter handed = w;
                handed.loop.execute(() -> {
                    handed.timer.cancel(false);
                    handed.grant.granted();
                });
                return;
            }
        }
        inUse.decrementAndGet();
    }

    /** Whether every permit is taken now (a hint for the balancer: it may change the next moment). */
    boolean full() {
        // Per connection, an idle connection is a permit any request may have (its own loop's at once, another's
        // after a reclaim): only busy ones make the server full.
        return max > 0 && inUse.get() - (perConnection ? idle.get() : 0) >= max;
    }

    int inUse() {
        return inUse.get();
    }

    private final class Waiter implements Ticket {
        final EventLoop loop;
        final Grant grant;
        final AtomicBoolean done = new AtomicBoolean();
        /** Connections that went to later waiters of their own loops while this one was the oldest. */
        final AtomicInteger skipped = new AtomicInteger();
        ScheduledFuture<?> timer;

        Waiter(EventLoop loop, Grant grant) {
            this.loop = loop;
            this.grant = grant;
        }

        boolean claim() {
            if (done.compareAndSet(false, true)) {
                queued.decrementAndGet();
                return true;
            }
            return false;
        }

        void timedOut() {
            if (claim()) {
                waiters.remove(this);
                grant.rejected();
            }
        }

        @Override
        public void cancel() {
            if (claim()) {
                waiters.remove(this);
                timer.cancel(false);
            }
        }
    }
}
