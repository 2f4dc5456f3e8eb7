package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one zone asks its Redis store now, and its failures: after {@code store-failure-threshold} failures in
 * a row (timeouts, refusals) Redis is not asked for {@code store-failure-pause}, and on-store-failure decides at
 * once. A Redis that hangs (a partition drops packets, a slow command blocks it, a cluster node died and its
 * replica has not taken over yet) would otherwise cost every request the whole store-timeout; a disconnected
 * single server fails at once anyway. After the pause the next requests ask again, and one success ends the count.
 * Thread-safe: called from Lettuce's thread and the event loops.
 */
final class StoreHealth {
    private static final Logger log = LoggerFactory.getLogger(StoreHealth.class);
    private static final long FAILURE_LOG_INTERVAL = TimeUnit.SECONDS.toNanos(10);

    private final String zone;
    private final RateLimitZoneConfig.Store store;
    private final int failuresToPause;
    private final long pauseNanos;
    private final LongAdder failures = new LongAdder();
    private final AtomicInteger failuresInARow = new AtomicInteger();
    /** {@code System.nanoTime()} until which Redis is not asked; a past time when it is. */
    private volatile long pausedUntil = System.nanoTime();
    private final AtomicLong lastFailureLog = new AtomicLong(System.nanoTime() - FAILURE_LOG_INTERVAL);

    /** {@code zone}: its config key ({@code rate-limits.NAME}, {@code limit-conn.NAME}), for the log. */
    StoreHealth(String zone, RateLimitZoneConfig.Store store) {
        this.zone = zone;
        this.store = store;
        this.failuresToPause = store.failureThreshold();
        this.pauseNanos = store.failurePause().toNanos();
    }

    /** Whether the store is in its pause: then on-store-failure decides, counted by {@link #skipped}. */
    boolean paused() {
        return System.nanoTime() - pausedUntil < 0;
    }

    /** A decision made without asking, during the pause. */
    void skipped() {
        failures.increment();
    }

    void succeeded() {
        failuresInARow.set(0);
    }

    void failed(Throwable failure) {
        failures.increment();
        logFailure(failure);
        if (failuresInARow.incrementAndGet() >= failuresToPause) {
            failuresInARow.set(0);
            pausedUntil = System.nanoTime() + pauseNanos;
        }
    }

    /** Decisions the store could not make, which on-store-failure made. */
    long failures() {
        return failures.sum();
    }

    /** At most one line per 10 s: a Redis that is down fails every request. */
    void logFailure(Throwable failure) {
        long now = System.nanoTime();
        long last = lastFailureLog.get();
        if (now - last >= FAILURE_LOG_INTERVAL && lastFailureLog.compareAndSet(last, now)) {
            Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
            log.warn("{}: the Redis store did not decide ({}); on-store-failure = {} decides ({} such decisions so"
                    + " far)", zone, cause.toString(), store.onFailure().name().toLowerCase(Locale.ROOT),
                    failures.sum());
        }
    }
}
