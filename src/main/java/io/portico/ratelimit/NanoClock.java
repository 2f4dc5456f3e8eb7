package io.portico.ratelimit;

/** A monotonic nanosecond clock; tests inject a manual one so no test ever sleeps. */
@FunctionalInterface
interface NanoClock {

    NanoClock SYSTEM = System::nanoTime;

    long nanoTime();
}
