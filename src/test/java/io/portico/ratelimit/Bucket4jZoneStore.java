package io.portico.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.UninterruptibleBlockingStrategy;
import io.github.bucket4j.local.LocalBucket;
import io.github.bucket4j.local.SynchronizationStrategy;
import io.portico.config.RateLimitZoneConfig;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * The same zone arithmetic as {@link CompactZoneStore} on one Bucket4j bucket per key, kept to prove the mapping
 * (the timeline tests run against both) and as the template for a Bucket4j {@code ProxyManager} (Redis) backend
 * shared by many instances.
 *
 * <p>Mapping: a bucket of capacity {@code immediate + 1} tokens ({@code burst + 1} with nodelay, {@code delay + 1}
 * otherwise) refilled greedily at exactly {@code requests / per}, starting full. A request consumes one token;
 * when none is left, a delayed zone reserves it on credit (Bucket4j's blocking API with a strategy that records
 * the wait instead of parking) if the wait is at most {@code (burst - delay) * T}, which is nginx's
 * {@code excess <= burst}; the wait is nginx's {@code (excess - delay) / rate}. Rejected requests take nothing.
 *
 * <p>Buckets are lock-free ({@link SynchronizationStrategy#LOCK_FREE}): an event loop must never wait for a lock
 * another loop holds (a preempted holder would stall every client on the waiting loop), there is no lock object
 * per key to store, and contention on one key is rare; the price is a state copy per attempt. Bucket4j reads time
 * from its {@link TimeMeter}, so the {@code nowNanos} arguments are ignored: the clock given here must be the
 * same one the caller reads.
 */
final class Bucket4jZoneStore implements ZoneStore {

    private final Bandwidth limit;
    private final TimeMeter time;
    private final long maxWaitNanos;
    private final long intervalNanos;
    private final Cache<ClientKey, LocalBucket> buckets;
    private final LongAdder evictions = new LongAdder();

    Bucket4jZoneStore(RateLimitZoneConfig zone, ZoneShape shape, NanoClock clock, Executor maintenance) {
        long capacity = shape.servedAtOnce();
        this.limit = Bandwidth.builder().capacity(capacity).refillGreedy(zone.requests(), zone.per()).build();
        this.time = timeMeter(clock);
        this.maxWaitNanos = shape.longestWaitNanos();
        this.intervalNanos = shape.intervalNanos();
        this.buckets = Caffeine.newBuilder()
                .maximumSize(zone.maxClients())
                .expireAfterAccess(Duration.ofNanos(shape.forgetAfterNanos()))
                .ticker(clock::nanoTime)
                .executor(maintenance)
                .evictionListener((ClientKey key, LocalBucket bucket, RemovalCause cause) -> {
                    if (cause == RemovalCause.SIZE) {
                        evictions.increment();
                    }
                })
                .build();
    }

    private LocalBucket newBucket(ClientKey key) {
        return Bucket.builder()
                .addLimit(limit)
                .withCustomTimePrecision(time)
                .withSynchronizationStrategy(SynchronizationStrategy.LOCK_FREE)
                .build();
    }

    @Override
    public long take(ClientKey key, long nowNanos) {
        LocalBucket bucket = buckets.get(key, this::newBucket);
        if (maxWaitNanos == 0) {
            ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
            return probe.isConsumed() ? 0 : -probe.getNanosToWaitForRefill();
        }
        WaitRecorder wait = new WaitRecorder();
        if (bucket.asBlocking().tryConsumeUninterruptibly(1, maxWaitNanos, wait)) {
            return wait.nanos;
        }
        long refill = bucket.estimateAbilityToConsume(1).getNanosToWaitForRefill();
        return -Math.max(1, refill - maxWaitNanos);
    }

    /** Records the wait Bucket4j asks for instead of parking: the event loop's timer does the waiting. */
    private static final class WaitRecorder implements UninterruptibleBlockingStrategy {
        long nanos;

        @Override
        public void parkUninterruptibly(long nanosToPark) {
            nanos = nanosToPark;
        }
    }

    @Override
    public void giveBack(ClientKey key, long nowNanos) {
        LocalBucket bucket = buckets.getIfPresent(key);
        if (bucket != null) {
            bucket.addTokens(1);
        }
    }

    /** The tokens missing from a full bucket, as time (an approximation: tokens are whole). */
    @Override
    public long backlogNanos(ClientKey key, long nowNanos) {
        LocalBucket bucket = buckets.getIfPresent(key);
        if (bucket == null) {
            return 0;
        }
        long missing = limit.getCapacity() - bucket.getAvailableTokens();
        return Math.max(0, missing) * intervalNanos;
    }

    @Override
    public long size() {
        return buckets.estimatedSize();
    }

    @Override
    public long evictions() {
        return evictions.sum();
    }

    @Override
    public void cleanUp() {
        buckets.cleanUp();
    }

    /** {@code clock} as Bucket4j reads time: a monotonic clock, not the wall clock. */
    private static TimeMeter timeMeter(NanoClock clock) {
        return new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                return clock.nanoTime();
            }

            @Override
            public boolean isWallClockBased() {
                return false;
            }
        };
    }
}
