package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.EventLoop;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives the virtual clients of one event loop: the closed loop (each client sends its next request when the last
 * is answered) or the open loop (requests leave on an {@link OpenLoopSchedule}; a request waits for a free
 * connection and the wait counts in its latency). Every method runs on {@link #loop} except construction.
 */
final class LoopDriver {

    private static final long RETRY_BACKOFF_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private final EventLoop loop;
    private final List<RequestTemplate> templates;
    private final LoopStats stats;
    private final BenchOptions options;
    private final AtomicLong permits;
    private final CountDownLatch done;
    private final List<LoadClient> clients = new ArrayList<>();
    private final ArrayDeque<LoadClient> idle = new ArrayDeque<>();
    private final long timeoutNs;
    private final double loopRate;
    private final long loopLimit;
    private final long phaseNs;
    private OpenLoopSchedule schedule;
    private int nextTemplate;
    private boolean stopping;
    private boolean finished;
    private volatile long threadId = -1;
    private ScheduledFuture<?> sweeper;

    /**
     * @param permits shared budget of requests for -n (null: unbounded); {@code loopRate}/{@code loopLimit}: this
     *                loop's share of the open-loop rate and request count; {@code phaseNs} offsets its schedule
     */
    LoopDriver(EventLoop loop, Bootstrap bootstrap, List<RequestTemplate> templates, BenchOptions options,
            int connections, int firstClientIndex, LoopStats stats, AtomicLong permits, CountDownLatch done,
            double loopRate, long loopLimit, long phaseNs, ClientTls tls) {
        this.loop = loop;
        this.templates = templates;
        this.options = options;
        this.stats = stats;
        this.permits = permits;
        this.done = done;
        this.timeoutNs = options.timeout().toNanos();
        this.loopRate = loopRate;
        this.loopLimit = loopLimit;
        this.phaseNs = phaseNs;
        List<InetAddress> ips = options.sourceIps();
        for (int i = 0; i < connections; i++) {
            InetSocketAddress local = ips.isEmpty() ? null
                    : new InetSocketAddress(ips.get((firstClientIndex + i) % ips.size()), 0);
            long repetitions = options.repetitions() > 0 ? options.repetitions() : Long.MAX_VALUE;
            if (options.h2()) {
                H2Connection connection = new H2Connection(this, bootstrap, local, stats, tls, options.streams());
                for (H2Stream stream : connection.streams()) {
                    stream.repetitionsLeft(repetitions);
                    clients.add(stream);
                }
            } else {
                VirtualClient client = new VirtualClient(this, bootstrap, local, stats, options.keepAlive(), tls);
                client.repetitionsLeft(repetitions);
                clients.add(client);
            }
        }
    }

    EventLoop loop() {
        return loop;
    }

    long threadId() {
        return threadId;
    }

    /** Starts the load at {@code startNs} (a System.nanoTime value). */
    void start(long startNs) {
        loop.execute(() -> {
            threadId = Thread.currentThread().getId();
            long sweep = Math.max(TimeUnit.MILLISECONDS.toNanos(1), Math.min(timeoutNs / 10,
                    TimeUnit.MILLISECONDS.toNanos(100)));
            sweeper = loop.scheduleAtFixedRate(this::sweepTimeouts, sweep, sweep, TimeUnit.NANOSECONDS);
            if (loopRate > 0) {
                schedule = new OpenLoopSchedule(startNs + phaseNs, loopRate, loopLimit);
                idle.addAll(clients);
                tick();
            } else {
                for (LoadClient client : clients) {
                    closedLoopNext(client, System.nanoTime());
                }
            }
        });
    }

    private RequestTemplate nextTemplate() {
        RequestTemplate t = templates.get(nextTemplate);
        nextTemplate = (nextTemplate + 1) % templates.size();
        return t;
    }

    private void tick() {
        if (stopping || finished) {
            return;
        }
        long now = System.nanoTime();
        while (schedule.backlog(now) > 0 && !idle.isEmpty()) {
            idle.poll().send(nextTemplate(), schedule.take(), now);
        }
        if (schedule.exhausted()) {
            stop();
            return;
        }
        long delay = Math.max(schedule.nextDue() - now, TimeUnit.MICROSECONDS.toNanos(500));
        loop.schedule(this::tick, delay, TimeUnit.NANOSECONDS);
    }

    /**
     * A client finished its request; {@code backoff} after failures that would otherwise spin. The next request's
     * clock starts when it is sent (one clock read for the send, one when the response arrives).
     */
    void onIdle(LoadClient client, boolean backoff) {
        if (schedule != null) {
            // a hop through the task queue: a connect that fails at once must not recurse through the backlog
            loop.execute(() -> openLoopNext(client));
            return;
        }
        if (backoff) {
            loop.schedule(() -> closedLoopNext(client, System.nanoTime()), RETRY_BACKOFF_NS, TimeUnit.NANOSECONDS);
        } else {
            closedLoopNext(client, System.nanoTime());
        }
    }

    private void openLoopNext(LoadClient client) {
        long now = System.nanoTime();
        if (!stopping && schedule.backlog(now) > 0) {
            client.send(nextTemplate(), schedule.take(), now);
        } else {
            idle.add(client);
            checkFinished();
        }
    }

    private void closedLoopNext(LoadClient client, long nowNs) {
        if (stopping || client.repetitionsLeft() <= 0 || permits != null && permits.getAndDecrement() <= 0) {
            client.closeChannel();
            idle.add(client);
            checkFinished();
            return;
        }
        client.repetitionsLeft(client.repetitionsLeft() - 1);
        client.send(nextTemplate(), nowNs, nowNs);
    }

    /** Stops sending; requests the open loop owed but never sent are recorded at their lateness. */
    void stop() {
        if (stopping) {
            return;
        }
        stopping = true;
        if (schedule != null) {
            long now = System.nanoTime();
            long owed = schedule.backlog(now);
            for (long i = 0; i < owed; i++) {
                stats.unsent(now - schedule.take());
            }
        }
        checkFinished();
    }

    private void sweepTimeouts() {
        long now = System.nanoTime();
        for (LoadClient client : clients) {
            client.checkTimeout(now, timeoutNs);
        }
    }

    private void checkFinished() {
        if (!finished && idle.size() == clients.size() && (stopping || schedule == null)) {
            finished = true;
            sweeper.cancel(false);
            for (LoadClient client : clients) {
                client.closeChannel();
            }
            done.countDown();
        }
    }

    /** Ends the run now: unfinished requests count as timeouts at their age, connections close. */
    void abort() {
        stopping = true;
        long now = System.nanoTime();
        for (LoadClient client : clients) {
            client.abandon(now);
        }
        if (!finished) {
            finished = true;
            if (sweeper != null) {
                sweeper.cancel(false);
            }
            done.countDown();
        }
    }
}
