package io.portico.ratelimit;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What one zone decided, for metrics. In a dry-run zone {@code delayed} and {@code rejected} count what would
 * have happened and {@code dryRun} how many of those requests were let through anyway.
 */
public final class ZoneCounters {
    final LongAdder passed = new LongAdder();
    final LongAdder delayed = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder dryRun = new LongAdder();
    private final LongSupplier clients;
    private final LongSupplier evictions;
    private final LongSupplier storeFailures;

    ZoneCounters(LongSupplier clients, LongSupplier evictions, LongSupplier storeFailures) {
        this.clients = clients;
        this.evictions = evictions;
        this.storeFailures = storeFailures;
    }

    /** Requests served at once. */
    public long passed() {
        return passed.sum();
    }

    /** Requests served after a wait (limit-conn zones never delay). */
    public long delayed() {
        return delayed.sum();
    }

    public long rejected() {
        return rejected.sum();
    }

    /** Every request the zone decided on: passed, delayed or rejected (dry-run ones are among these). */
    long decided() {
        return passed.sum() + delayed.sum() + rejected.sum();
    }

    /** Requests a dry-run zone would have delayed or rejected. */
    public long dryRun() {
        return dryRun.sum();
    }

    /** Keys the zone currently holds state for. */
    public long clients() {
        return clients.getAsLong();
    }

    /** Keys dropped early because the zone reached its maximum size. */
    public long evictions() {
        return evictions.getAsLong();
    }

    /** Decisions a shared (Redis) store could not make in time, made by the zone's on-store-failure instead. */
    public long storeFailures() {
        return storeFailures.getAsLong();
    }

    @Override
    public String toString() {
        return "passed=" + passed() + " delayed=" + delayed() + " rejected=" + rejected() + " dryRun=" + dryRun()
                + " clients=" + clients() + " evictions=" + evictions() + " storeFailures=" + storeFailures();
    }
}
