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
 * ones) and expiring a key {@code (burst + 1) * T} after its last access, when its bucket is full again, so an
 * expiry never hands out tokens early. A Bucket4j bucket per key costs several times more memory
 * (the tests' reference {@code Bucket4jZoneStore}, measured by {@code ZoneMemoryBenchmark}), hence this store.
 *
 * <p>A connection's {@link SlotMemo} skips the cache lookup (half of a passing request's cost in the limiter, with the
 * clock read and read-buffer upkeep it brings) when its request has the key it charged last. Two rules keep that
 * exact. A slot the cache drops is marked {@link #RETIRED} as it goes, so no memo charges a state that a new slot of
 * the same key has replaced. A memo charges only while the new arrival time stays within {@code (burst + 1) * T} of
 * when the slot was last found, so the entry's access time (refreshed by that lookup) keeps it from expiring before
 * its bucket is full again; past that the slot is looked up, which refreshes it. A third keeps a spray from taking
 * busy clients' state: while the zone holds more than half its {@code maxClients} (a spray of new addresses fills it)
 * memos are bypassed: who stays in a full zone is decided by how often Caffeine has seen each key, and a busy client
 * charged through its memo looks rare (in a zone of 100 sprayed from another connection, it lost its bucket to the
 * spray when seen even once in 8 of its requests; looked up every time, never). Every {@link #MEMO_USES}th request
 * looks up anyway, and each lookup updates whether the zone is crowded.
 */
final class CompactZoneStore implements ZoneStore {

    /**
     * Retained heap per key with Caffeine's bookkeeping, measured by {@code ZoneMemoryBenchmark} (1,000,000 IPv4
     * keys, compressed oops).
     */
    static final long BYTES_PER_CLIENT = 115;

    /** The heap a zone holds when full: what {@code portico check} says of it and the heap advice counts. */
    static long fullBytes(long maxClients) {
        return maxClients * BYTES_PER_CLIENT;
    }

    /** The arrival time of a slot the cache has dropped: whoever holds it must find the key again. */
    static final long RETIRED = Long.MAX_VALUE;

    /** A memo's requests between two lookups of its slot. */
    static final int MEMO_USES = 64;

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
    /** Above this many clients the zone is crowded: memos are bypassed (see the class comment). */
    private final long crowdedAbove;
    /** Whether the zone held more than {@code crowdedAbove} clients at its last lookup. */
    private volatile boolean crowded;

    CompactZoneStore(ZoneShape shape, long maxClients, NanoClock clock, Executor maintenance) {
        this(shape, maxClients, clock, maintenance, Scheduler.disabledScheduler());
    }

    /** {@code sweeper} removes expired clients of a zone that gets no traffic (production: the system scheduler). */
    CompactZoneStore(ZoneShape shape, long maxClients, NanoClock clock, Executor maintenance, Scheduler sweeper) {
        this(shape, maxClients, clock, maintenance, sweeper, maxClients / 2);
    }

    /**
     * Tests: {@code crowdedAbove} is the number of clients above which memos are bypassed; a test that needs a
     * remembered slot evicted (which a lookup racing a spray can see) sets it out of reach.
     */
    CompactZoneStore(ZoneShape shape, long maxClients, NanoClock clock, Executor maintenance, Scheduler sweeper,
            long crowdedAbove) {
        this.shape = shape;
        this.crowdedAbove = crowdedAbove;
        this.slots = Caffeine.newBuilder()
                .scheduler(sweeper)
                .maximumSize(maxClients)
                .expireAfterAccess(Duration.ofNanos(shape.forgetAfterNanos()))
                .ticker(clock::nanoTime)
                .executor(maintenance)
                .evictionListener((ClientKey key, ClientKey slot, RemovalCause cause) -> {
                    // Run as the entry is removed, before its key can be stored anew. A charge that lands just
                    // before this goes with the slot's state: after an expiry that changes nothing (take keeps an
                    // expiring slot's bucket full), after an eviction it is what the eviction loses anyway.
                    slot.tat = RETIRED;
                    if (cause == RemovalCause.SIZE) {
                        evictions.increment();
                    }
                })
                .build();
    }

    @Override
    public long take(ClientKey key, long nowNanos) {
        return take(key, nowNanos, null);
    }

    @Override
    public long take(ClientKey key, long nowNanos, SlotMemo memo) {
        ClientKey slot = remembered(memo, key);
        for (;;) {
            if (slot == null) {
                slot = find(key);
                if (memo != null) {
                    memo.slot = slot;
                    memo.foundAt = nowNanos;
                    memo.uses = 0;
                }
            }
            long tat = slot.tat;
            if (tat == RETIRED) {
                slot = null;
                continue;
            }
            long start = Math.max(tat, nowNanos);
            long backlog = start - nowNanos;
            if (backlog > shape.toleranceNanos()) {
                return -(backlog - shape.toleranceNanos());
            }
            long next = start + shape.intervalNanos();
            if (memo != null && next - memo.foundAt > shape.forgetAfterNanos()) {
                // the entry could expire before this charge is refilled; a lookup refreshes it (never true just
                // after one: next <= now + tolerance + T)
                slot = null;
                continue;
            }
            if (TAT.compareAndSet(slot, tat, next)) {
                return Math.max(0, backlog - shape.immediateNanos());
            }
        }
    }

    /**
     * The memo's slot when it holds {@code key}, its lookup is not due and the zone is not crowded; null means look
     * the key up.
     */
    private ClientKey remembered(SlotMemo memo, ClientKey key) {
        if (memo == null || memo.slot == null || ++memo.uses > MEMO_USES || crowded || !memo.slot.equals(key)) {
            return null;
        }
        return memo.slot;
    }

    /** The key's live slot, stored now if it has none. */
    private ClientKey find(ClientKey key) {
        for (;;) {
            ClientKey slot = slots.getIfPresent(key);
            if (slot == null) {
                // Store a copy, never the caller's probe, as one object serving as key, value and state.
                slot = slots.get(key.copy(), ITSELF);
            }
            if (slot.tat != RETIRED) {
                boolean crowdedNow = slots.estimatedSize() > crowdedAbove;
                if (crowdedNow != crowded) { // written on a change only: every loop reads it
                    crowded = crowdedNow;
                }
                return slot;
            }
            Thread.onSpinWait(); // dropped this instant: its entry is on its way out of the map
        }
    }

    @Override
    public void giveBack(ClientKey key, long nowNanos) {
        giveBack(key, nowNanos, null);
    }

    @Override
    public void giveBack(ClientKey key, long nowNanos, SlotMemo memo) {
        // the slot the request was charged to: take leaves it in the memo
        ClientKey slot = memo != null && memo.slot != null && memo.slot.equals(key) ? memo.slot
                : slots.getIfPresent(key);
        if (slot == null) {
            return;
        }
        for (;;) {
            long tat = slot.tat;
            if (tat == RETIRED || TAT.compareAndSet(slot, tat, tat - shape.intervalNanos())) {
                return;
            }
        }
    }

    @Override
    public long backlogNanos(ClientKey key, long nowNanos) {
        ClientKey slot = slots.getIfPresent(key);
        return slot == null || slot.tat == RETIRED ? 0 : Math.max(0, slot.tat - nowNanos);
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
