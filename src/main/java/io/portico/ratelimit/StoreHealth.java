package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one zone asks a node of its Redis store now, and the zone's failures: after
 * {@code store-failure-threshold} failures in a row on one node (timeouts, refusals) that node is not asked for
 * {@code store-failure-pause}, and on-store-failure decides at once for the keys it holds. A Redis that hangs (a
 * partition drops packets, a slow command blocks it, a cluster node died and its replica has not taken over yet)
 * would otherwise cost every request the whole store-timeout; a disconnected single server fails at once anyway.
 * After the pause the next requests ask again, and one success ends the count.
 *
 * <p>Per node, not per zone: with one master of a Redis Cluster dead, the keys on the other masters are still
 * decided by Redis (a pause per zone sent every client of the zone to on-store-failure). A node is named by
 * {@link StoreConnection#nodeOf}: its cluster node id (a failover's new master is a new node, asked at once), or
 * one name for a single server. Thread-safe: called from Lettuce's thread and the event loops.
 */
final class StoreHealth {
    private static final Logger log = LoggerFactory.getLogger(StoreHealth.class);
    private static final long FAILURE_LOG_INTERVAL = TimeUnit.SECONDS.toNanos(10);
    /**
     * Writes the failure lines, off the event loop that decided (see {@link #logFailure}). Started with the first
     * shared zone, not by the first failure: starting a thread (or the common pool) then cost that failure's
     * request 14 ms past store-timeout.
     */
    private static final ExecutorService LOG = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "portico-store-failures");
        t.setDaemon(true);
        return t;
    });

    static {
        LOG.execute(() -> log.debug("store failures are logged on this thread"));
        // Loaded now, not by the first failure, which hands the loop's failure to LOG (see FailureLine).
        LOG.execute(new FailureLine(null, null, 0));
    }

    private final String zone;
    private final RateLimitZoneConfig.Store store;
    private final int failuresToPause;
    private final long pauseNanos;
    private final LongAdder failures = new LongAdder();
    /** By node; a cluster has a handful, so this never grows past the nodes the store has had. */
    private final ConcurrentHashMap<String, Node> nodes = new ConcurrentHashMap<>();
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - FAILURE_LOG_INTERVAL);

    /** {@code zone}: its config key ({@code rate-limits.NAME}, {@code limit-conn.NAME}), for the log. */
    StoreHealth(String zone, RateLimitZoneConfig.Store store) {
        this.zone = zone;
        this.store = store;
        this.failuresToPause = store.failureThreshold();
        this.pauseNanos = store.failurePause().toNanos();
        node("server"); // the first failure's path made once here (its class, the map's entry), not on a loop
    }

    /** Failures in a row on one node, and until when ({@code System.nanoTime()}) it is not asked. */
    private static final class Node {
        final AtomicInteger failuresInARow = new AtomicInteger();
        volatile long pausedUntil = System.nanoTime();
    }

    private Node node(String name) {
        Node node = nodes.get(name);
        return node != null ? node : nodes.computeIfAbsent(name, n -> new Node());
    }

    /** Whether {@code node} is in its pause: then on-store-failure decides, counted by {@link #skipped}. */
    boolean paused(String node) {
        Node n = nodes.get(node);
        return n != null && System.nanoTime() - n.pausedUntil < 0;
    }

    /** A decision made without asking, during the pause. */
    void skipped() {
        failures.increment();
    }

    void succeeded(String node) {
        Node n = nodes.get(node);
        if (n != null && n.failuresInARow.get() != 0) {
            n.failuresInARow.set(0);
        }
    }

    void failed(String node, Throwable failure) {
        failures.increment();
        logFailure(failure);
        Node n = node(node);
        if (n.failuresInARow.incrementAndGet() >= failuresToPause) {
            n.failuresInARow.set(0);
            n.pausedUntil = System.nanoTime() + pauseNanos;
        }
    }

    /** Decisions the store could not make, which on-store-failure made. */
    long failures() {
        return failures.sum();
    }

    /**
     * At most one line per 10 s: a Redis that is down fails every request. Written on a thread of its own, not by
     * the caller: a failure is decided on the event loop that holds the request, and the line (formatted, then
     * written by a synchronous appender) would delay that request's answer past store-timeout.
     */
    void logFailure(Throwable failure) {
        long now = System.nanoTime();
        long last = lastFailureLog.get();
        if (now - last >= FAILURE_LOG_INTERVAL && lastFailureLog.compareAndSet(last, now)) {
            long soFar = failures.sum();
            LOG.execute(new FailureLine(this, failure, soFar));
        }
    }

    /**
     * The task that writes one failure line. A class, not a lambda: a lambda's call site is linked when it first
     * runs, and here that is the first failure after a node died, on the event loop holding the request. Measured
     * with the hand-off timed in the server (RedisClusterZoneTest's killed master, 2026-12-03): the first hand-off
     * took 1.0-6.8 ms of the loop, and the first failure's whole decision after its deadline 8-69 ms.
     */
    private record FailureLine(StoreHealth health, Throwable failure, long soFar) implements Runnable {
        @Override
        public void run() {
            if (health != null) { // null: the one made at class load, so the class is loaded before any failure
                health.write(failure, soFar);
            }
        }
    }

    private void write(Throwable failure, long soFar) {
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        log.warn("{}: the Redis store did not decide ({}); on-store-failure = {} decides ({} such decisions so far)",
                zone, cause.toString(), store.onFailure().name().toLowerCase(Locale.ROOT), soFar);
    }
}
