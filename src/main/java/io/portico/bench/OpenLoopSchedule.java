package io.portico.bench;

/**
 * The intended send times of an open-loop run: request {@code i} is due at {@code start + i * period}. Requests
 * that are due but not yet sent form a backlog that is just a range of indices, so a stalled server costs no memory
 * however long it stalls, and every late request keeps its original due time (no coordinated omission).
 */
final class OpenLoopSchedule {

    private final long startNs;
    private final double periodNs;
    private final long limit;
    private long next;

    /** {@code limit}: how many requests in all (Long.MAX_VALUE: until stopped). */
    OpenLoopSchedule(long startNs, double ratePerSecond, long limit) {
        this.startNs = startNs;
        this.periodNs = 1e9 / ratePerSecond;
        this.limit = limit;
    }

    /** How many requests are due by {@code nowNs} in all (sent or not). */
    long dueBy(long nowNs) {
        if (nowNs < startNs) {
            return 0;
        }
        return Math.min(limit, (long) ((nowNs - startNs) / periodNs) + 1);
    }

    /** Requests due by {@code nowNs} and not yet taken. */
    long backlog(long nowNs) {
        return dueBy(nowNs) - next;
    }

    /** Takes the oldest due request and returns its intended send time. */
    long take() {
        return dueTime(next++);
    }

    long dueTime(long index) {
        return startNs + (long) (index * periodNs);
    }

    /** The due time of the next request not yet taken. */
    long nextDue() {
        return dueTime(next);
    }

    boolean exhausted() {
        return next >= limit;
    }

    long taken() {
        return next;
    }
}
