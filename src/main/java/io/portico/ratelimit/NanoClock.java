package io.portico.ratelimit;

import io.github.bucket4j.TimeMeter;

/** A monotonic nanosecond clock; tests inject a manual one so no test ever sleeps. */
@FunctionalInterface
interface NanoClock {

    NanoClock SYSTEM = System::nanoTime;

    long nanoTime();

    /**
     * This clock as Bucket4j reads time. {@code wallClock}: whether it stands for the wall clock, which Bucket4j
     * requires of a bucket shared by several processes (a test's manual clock does).
     */
    default TimeMeter asTimeMeter(boolean wallClock) {
        return new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return nanoTime();
            }

            @Override
            public boolean isWallClockBased() {
                return wallClock;
            }
        };
    }
}
