package io.portico.ratelimit;

import java.time.Instant;

/** A monotonic nanosecond clock; tests inject a manual one so no test ever sleeps. */
@FunctionalInterface
interface NanoClock {

    NanoClock SYSTEM = System::nanoTime;

    /**
     * The wall clock in nanoseconds since the epoch, in the steps the JDK's clock gives (microseconds on Linux;
     * a clock in milliseconds, as Bucket4j's own is, would step by a 1000r/s zone's whole interval): the time of shared zones,
     * sent with each decision to Redis, since instances on different hosts agree on it and not on
     * {@code nanoTime}. Not monotonic.
     */
    NanoClock WALL = () -> {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    };

    long nanoTime();
}
