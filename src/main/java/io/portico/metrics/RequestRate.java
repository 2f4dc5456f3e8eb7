package io.portico.metrics;

import java.util.function.LongSupplier;

/**
 * Requests per second over the last minute (or since start, when younger), for the status page: the request
 * total sampled once a second into a ring, on the metrics thread. A scrape reads it under the same lock.
 */
final class RequestRate {
    private static final int SLOTS = 61;
    private final LongSupplier total;
    private final LongSupplier nanoClock;
    private final long[] totals = new long[SLOTS];
    private final long[] times = new long[SLOTS];
    private int next;
    private int filled;

    RequestRate(LongSupplier total, LongSupplier nanoClock) {
        this.total = total;
        this.nanoClock = nanoClock;
        sample();
    }

    synchronized void sample() {
        totals[next] = total.getAsLong();
        times[next] = nanoClock.getAsLong();
        next = (next + 1) % SLOTS;
        filled = Math.min(SLOTS, filled + 1);
    }

    /** Requests per second between the oldest sample kept and now. */
    synchronized double perSecond() {
        int oldest = filled < SLOTS ? 0 : next;
        long nanos = nanoClock.getAsLong() - times[oldest];
        return nanos <= 0 ? 0 : (total.getAsLong() - totals[oldest]) * 1e9 / nanos;
    }
}
