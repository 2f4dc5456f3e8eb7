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
 */
public final class ConnectionLimit {
    /** Told on the waiter's event loop whether it got a permit. */
    public interface Grant {
        void granted();

        void rejected();
    }

    /** A pending acquisition; {@link #cancel()} when the request goes away first. */
    public interface Ticket {
        void cancel();
    }

    static final Ticket GRANTED = () -> {};

    private final int max;
    private final int maxQueue;
    private final Duration queueTimeout;
    private final AtomicInteger inUse = new AtomicInteger();
    private final AtomicInteger queued; // shared by the pool's servers
    private final ConcurrentLinkedQueue<Waiter> waiters = new ConcurrentLinkedQueue<>();

    ConnectionLimit(int max, int maxQueue, Duration queueTimeout, AtomicInteger queued) {
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
        }
        return waiter;
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
        return max > 0 && inUse.get() >= max;
    }

    int inUse() {
        return inUse.get();
    }

    private final class Waiter implements Ticket {
        final EventLoop loop;
        final Grant grant;
        final AtomicBoolean done = new AtomicBoolean();
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
