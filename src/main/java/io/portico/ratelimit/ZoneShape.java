package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;

/**
 * A zone's nginx {@code limit_req} parameters in nanoseconds of backlog.
 *
 * <p>nginx keeps, per key, {@code excess} (requests queued beyond the rate, in milli-requests) and the time of
 * the last admitted request; a request sets {@code excess = max(0, excess - rate * elapsed + 1)}, is rejected
 * (changing nothing) when that exceeds {@code burst}, and otherwise waits {@code (excess - delay) / rate}
 * ({@code nodelay}: never). Multiplying by the interval {@code T = 1 / rate} turns {@code excess} into a backlog
 * of time: the request is admitted when {@code backlog <= burst * T} and served after
 * {@code backlog - delay * T}.
 *
 * @param intervalNanos T, one request's share of time ({@code per / requests}, exact to the nanosecond: 50r/s is
 *     20 ms, 1r/m is 60 s, where nginx's integer milli-requests make 1r/m 62.5 s)
 * @param toleranceNanos {@code burst * T}: the largest backlog an admitted request may find
 * @param immediateNanos {@code delay * T} ({@code burst * T} with nodelay): backlog served without waiting
 * @param forgetAfterNanos {@code (burst + 1) * T}: after this long idle a key's bucket has fully refilled, so
 *     forgetting it changes no decision
 */
record ZoneShape(long intervalNanos, long toleranceNanos, long immediateNanos, long forgetAfterNanos) {

    static ZoneShape of(RateLimitZoneConfig zone) {
        long perNanos = zone.per().toNanos();
        long interval = Math.max(1, (perNanos + zone.requests() / 2) / zone.requests());
        long immediate = zone.nodelay() ? zone.burst() : Math.min(zone.delay(), zone.burst());
        return new ZoneShape(
                interval,
                Math.multiplyExact(interval, zone.burst()),
                Math.multiplyExact(interval, immediate),
                Math.multiplyExact(interval, zone.burst() + 1L));
    }

    /** Requests admitted at once by a fresh key: nginx's first request plus the burst, or up to delay + 1. */
    long servedAtOnce() {
        return immediateNanos / intervalNanos + 1;
    }

    /** Requests admitted but paced when a fresh key sends a flood (delay mode only). */
    long paced() {
        return longestWaitNanos() / intervalNanos;
    }

    /** The longest an admitted request waits: {@code (burst - delay) * T}; 0 with nodelay. */
    long longestWaitNanos() {
        return toleranceNanos - immediateNanos;
    }
}
