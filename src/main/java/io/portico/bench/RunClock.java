package io.portico.bench;

import java.util.concurrent.TimeUnit;

/** The time points of a run: start, end of warm-up (measuring starts), deadline, and the one-second ticks. */
final class RunClock {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final long startNs;
    private final long measureStartNs;
    private final long deadlineNs;

    RunClock(BenchOptions options, long startNs) {
        this.startNs = startNs;
        this.measureStartNs = startNs + options.warmup().toNanos();
        this.deadlineNs = options.duration() == null ? Long.MAX_VALUE
                : measureStartNs + options.duration().toNanos();
    }

    long startNs() {
        return startNs;
    }

    long measureStartNs() {
        return measureStartNs;
    }

    long deadlineNs() {
        return deadlineNs;
    }

    /** The next tick after {@code nowNs}: whole seconds from the start of measuring (warm-up ends on a tick). */
    long nextTick(long nowNs) {
        if (nowNs < measureStartNs) {
            long k = (nowNs - startNs) / SECOND + 1;
            return Math.min(startNs + k * SECOND, measureStartNs);
        }
        long k = (nowNs - measureStartNs) / SECOND + 1;
        return measureStartNs + k * SECOND;
    }
}
