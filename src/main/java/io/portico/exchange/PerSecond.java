package io.portico.exchange;

import java.util.function.LongFunction;

/**
 * A text that depends only on the current second (the {@code Date} and {@code Expires} headers, the access log's
 * time), computed at most once a second: formatting a date per response costs more than the rest of a small
 * static response. Shared by the event loops without a lock: a race only computes the same second twice.
 */
public final class PerSecond<T> {
    private record Cached<T>(long second, T value) {}

    private final LongFunction<T> compute;
    private volatile Cached<T> cached;

    /** @param compute the value for an epoch second */
    public PerSecond(LongFunction<T> compute) {
        this.compute = compute;
    }

    public T at(long epochSecond) {
        Cached<T> c = cached;
        if (c == null || c.second != epochSecond) {
            c = new Cached<>(epochSecond, compute.apply(epochSecond));
            cached = c;
        }
        return c.value;
    }
}
