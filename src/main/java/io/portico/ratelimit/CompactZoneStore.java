package io.portico.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The default zone store: one {@code long} per key (kept in the key object itself, see {@link ClientKey}), the
 * theoretical arrival time (GCRA) of the key's next
 * request, which is nginx's {@code excess} and {@code last} folded together: {@code backlog = max(tat, now) - now}
 * is {@code excess * T}, and admitting a request sets {@code tat = max(tat, now) + T}. The arithmetic is exact in
 * nanoseconds and needs no clamping or rounding state, so it matches nginx's timelines request for request.
 *
 * <p>Concurrency: lock-free. Each key's slot is updated by compare-and-set, so requests of one key racing on
 * several event loops are serialized at the CAS and never admit more than the bucket allows; a failed CAS just
 * recomputes (no allocation, no lock to hold across the Caffeine lookup).
 *
 * <p>Memory: Caffeine bounded by {@code maxClients} (W-TinyLFU admission keeps hot keys under a spray of new
 * ones) and expiring a key {@code (burst + 1) * T} after its last request, when its bucket is full again, so an
 * expiry never hands out tokens early. A Bucket4j bucket per key costs several times more memory
 * ({@link Bucket4jZoneStore}, measured by {@code ZoneMemoryBenchmark}), hence this store.
 */
final class CompactZoneStore implements ZoneStore {

    /**
     * Retained heap per key with Caffeine's bookkeeping, measured by {@code ZoneMemoryBenchmark} (1,000,000 IPv4
     * keys, compressed oops); {@code portico check} multiplies it by {@code maxClients}.
     */
    static final long BYTES_PER_CLIENT = 115;

    private static final VarHandle TAT;

    static {
        try {
            TAT = MethodHandles.lookup().findVarHandle(ClientKey.class, "tat", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A new client's stored key is also its value and its state (see {@link ClientKey}). */
    private static final Function<ClientKey, ClientKey> ITSELF = key -> key;

    private final ZoneShape shape;
    private final Cache<ClientKey, ClientKey> slots;
    private final LongAdder evictions = new LongAdder();

    CompactZoneStore(ZoneShape shape, long maxClients, NanoClock clock, Executor maintenance) {
        this(shape, maxClients, clock, maintenance, Scheduler.disabledScheduler());
    }

    /** {@code sweeper} removes expired clients of a zone that gets no traffic (production: the system scheduler). */
    CompactZoneStore(ZoneShape shape, long maxClients, NanoClock clock, Executor maintenance, Scheduler sweeper) {
        this.shape = shape;
        this.slots = Caffeine.newBuilder()
                .scheduler(sweeper)
                .maximumSize(maxClients)
                .expireAfterAccess(Duration.ofNanos(shape.forgetAfterNanos()))
                .ticker(clock::nanoTime)
                .executor(maintenance)
                .evictionListener((ClientKey key, ClientKey slot, RemovalCause cause) -> {
                    if (cause == RemovalCause.SIZE) {
                        evictions.increment();
                    }
                })
                .build();
    }

    @Override
    public long take(ClientKey key, long nowNanos) {
        ClientKey slot = slots.getIfPresent(key);
        if (slot == null) {
            // Store a copy, never the caller's probe, as one object serving as key, value and state.
            slot = slots.get(key.copy(), ITSELF);
        }
        for (;;) {
            long tat = slot.tat;
            long start = Math.max(tat, nowNanos);
            long backlog = start - nowNanos;
            if (backlog > shape.toleranceNanos()) {
                return -(backlog - shape.toleranceNanos());
            }
            if (TAT.compareAndSet(slot, tat, start + shape.intervalNanos())) {
                return Math.max(0, backlog - shape.immediateNanos());
            }
        }
    }

    @Override
    public void giveBack(ClientKey key, long nowNanos) {
        ClientKey slot = slots.getIfPresent(key);
        if (slot != null) {
            TAT.getAndAdd(slot, -shape.intervalNanos());
        }
    }

    @Override
    public long backlogNanos(ClientKey key, long nowNanos) {
        ClientKey slot = slots.getIfPresent(key);
        return slot == null ? 0 : Math.max(0, slot.tat - nowNanos);
    }

    @Override
    public long size() {
        return slots.estimatedSize();
    }

    @Override
    public long evictions() {
        return evictions.sum();
    }

    @Override
    public void cleanUp() {
        slots.cleanUp();
    }

    /** Whether {@code key} still has state (tests: expiry and eviction). */
    boolean holds(ClientKey key) {
        return slots.policy().getIfPresentQuietly(key) != null;
    }
}
