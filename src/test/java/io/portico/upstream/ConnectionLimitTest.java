package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {
    private final EventLoop a = new DefaultEventLoop();
    private final EventLoop b = new DefaultEventLoop();

    @AfterEach
    void stop() {
        a.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        b.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private static final class Recorder implements ConnectionLimit.Grant {
        final ConcurrentLinkedQueue<String> events;
        final String name;
        final CountDownLatch done = new CountDownLatch(1);
        volatile Thread thread;

        Recorder(ConcurrentLinkedQueue<String> events, String name) {
            this.events = events;
            this.name = name;
        }

        @Override
        public void granted() {
            thread = Thread.currentThread();
            events.add(name + " granted");
            done.countDown();
        }

        @Override
        public void rejected() {
            thread = Thread.currentThread();
            events.add(name + " rejected");
            done.countDown();
        }

        @Override
        public void handed(UpstreamConnection c) {
            thread = Thread.currentThread();
            events.add(name + " handed");
            done.countDown();
        }
    }

    @Test
    void aFreedPermitGoesToTheOldestWaiterOnItsOwnLoop() throws Exception {
        ConnectionLimit limit = new ConnectionLimit(1, 2, Duration.ofSeconds(5),
                new java.util.concurrent.atomic.AtomicInteger());
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        Recorder first = new Recorder(events, "first");
        Recorder second = new Recorder(events, "second");
        Recorder third = new Recorder(events, "third");
        Recorder fourth = new Recorder(events, "fourth");
        a.submit(() -> limit.acquire(a, first)).get();
        b.submit(() -> limit.acquire(b, second)).get();
        a.submit(() -> limit.acquire(a, third)).get();
        b.submit(() -> limit.acquire(b, fourth)).get(); // the queue (2) is full
        assertThat(events).containsExactly("first granted", "fourth rejected");
        Thread loopB = b.submit(Thread::currentThread).get();
        a.submit(limit::release).get();
        assertThat(second.done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(second.thread).isSameAs(loopB);
        assertThat(third.done.getCount()).isEqualTo(1);
        b.submit(limit::release).get();
        assertThat(third.done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(limit.inUse()).isEqualTo(1);
    }

    @Test
    void aWaiterTimesOutAndACancelledOneNeverGetsAPermit() throws Exception {
        ConnectionLimit limit = new ConnectionLimit(1, 5, Duration.ofMillis(100),
                new java.util.concurrent.atomic.AtomicInteger());
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        Recorder holder = new Recorder(events, "holder");
        Recorder late = new Recorder(events, "late");
        Recorder cancelled = new Recorder(events, "cancelled");
        a.submit(() -> limit.acquire(a, holder)).get();
        a.submit(() -> limit.acquire(a, late)).get();
        assertThat(late.done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(events).containsExactly("holder granted", "late rejected");
        ConnectionLimit.Ticket t = a.submit(() -> limit.acquire(a, cancelled)).get();
        a.submit(t::cancel).get();
        a.submit(limit::release).get();
        assertThat(limit.inUse()).isZero();
        assertThat(cancelled.done.getCount()).isEqualTo(1);
    }

    @Test
    void zeroMeansUnbounded() {
        ConnectionLimit limit = new ConnectionLimit(0, 0, Duration.ofMillis(1),
                new java.util.concurrent.atomic.AtomicInteger());
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < 100; i++) {
            limit.acquire(a, new Recorder(events, "r"));
        }
        assertThat(events).hasSize(100).containsOnly("r granted");
    }

    @Test
    void theQueueBoundIsSharedByThePoolsServers() throws Exception {
        java.util.concurrent.atomic.AtomicInteger queued = new java.util.concurrent.atomic.AtomicInteger();
        ConnectionLimit one = new ConnectionLimit(1, 1, Duration.ofSeconds(5), queued);
        ConnectionLimit two = new ConnectionLimit(1, 1, Duration.ofSeconds(5), queued);
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        a.submit(() -> {
            one.acquire(a, new Recorder(events, "one-holder"));
            two.acquire(a, new Recorder(events, "two-holder"));
            one.acquire(a, new Recorder(events, "one-waiter"));
            two.acquire(a, new Recorder(events, "two-waiter"));
        }).get();
        assertThat(events).containsExactly("one-holder granted", "two-holder granted", "two-waiter rejected");
        assertThat(queued.get()).isEqualTo(1);
    }

    /**
     * Per connection: a connection whose request ended goes to a waiter of its own loop, as it is, before an older
     * waiter on another loop (which would cost a close and a connect), but the older one's turn comes after
     * {@link ConnectionLimit#MAX_SKIPS} such hand-overs: then the connection is closed and its permit passes.
     */
    @Test
    void aKeptConnectionGoesToItsOwnLoopFirstButAnOlderWaiterGetsItsTurn() throws Exception {
        ConnectionLimit limit = new ConnectionLimit(1, 100, Duration.ofSeconds(5),
                new java.util.concurrent.atomic.AtomicInteger(), true);
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        a.submit(() -> limit.acquire(a, new Recorder(events, "holder"))).get();
        Recorder remote = new Recorder(events, "remote");
        b.submit(() -> limit.acquire(b, remote)).get();
        for (int i = 0; i < ConnectionLimit.MAX_SKIPS; i++) {
            Recorder local = new Recorder(events, "local" + i);
            a.submit(() -> limit.acquire(a, local)).get();
            assertThat(a.submit(() -> limit.freed(a, null)).get()).isEqualTo(ConnectionLimit.Freed.HANDED);
            assertThat(local.done.await(5, TimeUnit.SECONDS)).isTrue();
        }
        Recorder last = new Recorder(events, "last");
        a.submit(() -> limit.acquire(a, last)).get();
        assertThat(a.submit(() -> limit.freed(a, null)).get()).isEqualTo(ConnectionLimit.Freed.PASSED);
        assertThat(remote.done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(remote.thread).isSameAs(b.submit(Thread::currentThread).get());
        assertThat(events).contains("remote granted").doesNotContain("last handed", "last granted");
        assertThat(limit.inUse()).isEqualTo(1); // the permit moved, it was not released
        assertThat(a.submit(() -> limit.freed(a, null)).get()).isEqualTo(ConnectionLimit.Freed.HANDED);
        assertThat(last.done.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(a.submit(() -> limit.freed(a, null)).get()).isEqualTo(ConnectionLimit.Freed.IDLE);
    }

    /** Per connection: a request that queues while an idle connection holds a permit asks for it to be closed. */
    @Test
    void aQueuedRequestReclaimsAnIdleConnectionOnlyWhenThereIsOne() throws Exception {
        ConnectionLimit limit = new ConnectionLimit(1, 100, Duration.ofSeconds(5),
                new java.util.concurrent.atomic.AtomicInteger(), true);
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        limit.reclaimer(waiterLoop -> events.add("reclaim for " + (waiterLoop == b ? "b" : "?")));
        a.submit(() -> limit.acquire(a, new Recorder(events, "holder"))).get();
        b.submit(() -> limit.acquire(b, new Recorder(events, "busy"))).get();
        assertThat(events).containsExactly("holder granted");
        assertThat(limit.full()).isTrue();
        limit.idleAdded(); // the holder's connection went idle on a: the permit is anyone's
        assertThat(limit.full()).isFalse();
        Recorder waiter = new Recorder(events, "waiter");
        b.submit(() -> limit.acquire(b, waiter)).get();
        assertThat(events).containsExactly("holder granted", "reclaim for b");
        limit.idleRemoved(); // a closed it: the close releases the permit to the oldest waiter
        limit.release(); // to the oldest waiter, told on its loop: wait for that task
        b.submit(() -> {}).get();
        assertThat(events).containsExactly("holder granted", "reclaim for b", "busy granted");
    }
}
