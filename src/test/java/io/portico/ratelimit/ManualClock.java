package io.portico.ratelimit;

import java.util.concurrent.TimeUnit;

/** A clock tests move by hand; starts far from zero so nothing relies on time 0. */
final class ManualClock implements NanoClock {
    static final long START = TimeUnit.DAYS.toNanos(3);

    private volatile long now = START;

    @Override
    public long nanoTime() {
        return now;
    }

    /** Moves to {@code millis} after the start. */
    void atMillis(long millis) {
        now = START + TimeUnit.MILLISECONDS.toNanos(millis);
    }

    void advanceNanos(long nanos) {
        now += nanos;
    }
}
