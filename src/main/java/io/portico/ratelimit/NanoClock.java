package io.portico.ratelimit;

import io.github.bucket4j.TimeMeter;
import java.time.Instant;

/** A monotonic nanosecond clock; tests inject a manual one so no test ever sleeps. */
@FunctionalInterface
interface NanoClock {

    NanoClock SYSTEM = System::nanoTime;

    /**
     * The wall clock in nanoseconds since the epoch, in the steps the JDK's clock gives (microseconds on Linux;
     * Bucket4j's own wall clock steps by milliseconds, a 1000r/s zone's whole interval): the time of shared zones,
     * sent with each decision to Redis, since instances on different hosts agree on it and not on
     * {@code nanoTime}. Not monotonic.
     */
    NanoClock WALL = () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };

    long nanoTime();

    /**
     * This clock as Bucket4j reads time ({@link Bucket4jZoneStore}). {@code wallClock}: whether it stands for the
     * wall clock.
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
