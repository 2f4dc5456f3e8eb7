package io.portico.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.AsyncProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.portico.config.RateLimitZoneConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A zone whose buckets live in Redis, one per key, shared by every instance that names the same store: the
 * bucket mapping of the tests' {@code Bucket4jZoneStore} (capacity {@code immediate + 1}, refilled greedily at exactly the
 * rate, a delayed zone reserving on credit up to {@code (burst - delay) * T}) on Bucket4j's compare-and-swap
 * buckets over Lettuce's asynchronous API. A decision is one round trip (a Lua compare-and-swap; again on a
 * concurrent change), answered on Lettuce's thread; nothing here waits.
 *
 * <p>Time is the instances' wall clock (Bucket4j's client-side clock), so instances sharing a zone must keep their
 * clocks in step (NTP): a skew of d lets a bucket refill d early or late. A key expires in Redis once its bucket
 * would have refilled, plus a second, so Redis holds only the clients seen recently.
 */
final class RedisZoneStore implements SharedZoneStore {
    private static final long FAILED_RETRY = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    /** {@code portico:rate-limit:{ZONE:}, then the client, then {@link #suffix}: see {@link #redisKey}. */
    private final byte[] prefix;
    private final byte[] suffix;
    private final AsyncProxyManager<byte[]> buckets;
    private final Supplier<CompletableFuture<BucketConfiguration>> configuration;
    /** Each recent client's bucket proxy, which batches that client's concurrent requests (see the constructor). */
    private final Cache<ClientKey, Handle> proxies;
    private final long maxWaitNanos;
    private final RateLimitZoneConfig.Failure onFailure;
    /** This instance's own buckets, which decide while Redis cannot ({@code on-store-failure = local}); else null. */
    private final ZoneStore fallback;
    private final NanoClock fallbackClock;
    /** Failures, and the pause after store-failure-threshold of them in a row. */
    private final StoreHealth health;

    /**
     * {@code clock}: the instances' shared time; tests give a manual one (see {@link RateLimits}). {@code fallback}
     * (read on {@code fallbackClock}) decides when Redis cannot and the zone says {@code on-store-failure = local}.
     *
     * <p>A client's requests go through one bucket proxy per instance, with Bucket4j's batching: while a command for
     * the key is in flight, the requests that arrive meanwhile are sent as one command after it, instead of each
     * racing its own compare-and-swap. Without it, 50 connections of one client made 50 swaps contend for the same
     * key, and most retried until store-timeout (2,300 req/s, p99 100 ms, where a local zone passed 145,000 req/s).
     * Batching keeps the arithmetic exact (the commands are applied in order, in one swap). The proxies are kept
     * for the clients seen within the zone's forget-after, at most {@code max-clients} of them; a dropped proxy
     * loses nothing (the state is in Redis).
     */
    RedisZoneStore(RateLimitZoneConfig zone, ZoneShape shape, StoreConnection connection,
            TimeMeter clock, Executor maintenance, ZoneStore fallback, NanoClock fallbackClock) {
        this.name = zone.name();
        this.prefix = ("portico:rate-limit:{" + zone.name() + ":").getBytes(StandardCharsets.UTF_8);
        this.suffix = ("}:" + keySettings(zone, shape)).getBytes(StandardCharsets.UTF_8);
        BucketConfiguration config = BucketConfiguration.builder()
                .addLimit(Bandwidth.builder().capacity(shape.servedAtOnce())
                        .refillGreedy(zone.requests(), zone.per()).build())
                .build();
        CompletableFuture<BucketConfiguration> ready = CompletableFuture.completedFuture(config);
        this.configuration = () -> ready;
        this.buckets = connection.buckets()
                .clientClock(clock)
                .requestTimeout(zone.store().timeout())
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(1)))
                .build()
                .asAsync();
        this.proxies = Caffeine.newBuilder()
                .maximumSize(zone.maxClients())
                .expireAfterAccess(Duration.ofNanos(shape.forgetAfterNanos()))
                .executor(maintenance)
                .build();
        this.maxWaitNanos = shape.longestWaitNanos();
        this.onFailure = zone.store().onFailure();
        this.health = new StoreHealth("rate-limits." + zone.name(), zone.store());
        this.fallback = fallback;
        this.fallbackClock = fallbackClock;
    }

    /**
     * A key Redis rejected is answered here, without a round trip, until the time Redis said a request would be
     * admitted again ({@link Handle#rejectedUntil}): a flood from one client costs Redis one command per wait,
     * not one per request. Correct because nothing but time makes a rejected key admissible sooner: every
     * instance's requests in the meantime only charge the bucket (a rejection charges nothing) and refill is
     * fixed by the rate; the one exception, a charge given back by another instance whose other zone rejected
     * the same request, can only make this instance stricter than Redis for the rest of the wait, never more
     * lenient. During {@link StoreHealth}'s pause, on-store-failure decides at once.
     */
    @Override
    public CompletableFuture<Answer> take(ClientKey key) {
        Handle handle = proxies.getIfPresent(key);
        if (handle != null) {
            long left = handle.rejectedUntil - fallbackClock.nanoTime();
            if (left > 0) {
                return CompletableFuture.completedFuture(new Answer(-left, false));
            }
        }
        if (health.paused()) {
            health.skipped();
            return CompletableFuture.completedFuture(new Answer(decideWithout(key), true));
        }
        CompletableFuture<Long> verdict;
        Handle asked;
        try {
            asked = handle != null ? handle : bucket(key);
            verdict = maxWaitNanos == 0 ? takeNow(asked.proxy) : takeOrReserve(asked.proxy);
        } catch (RuntimeException e) { // the client refused the command before sending it
            return CompletableFuture.completedFuture(failed(key, e));
        }
        long askedAt = fallbackClock.nanoTime();
        return verdict.handle((v, failure) -> {
            if (failure != null) {
                return failed(key, failure);
            }
            health.succeeded();
            if (v < 0) {
                // counted from when Redis was asked: its wait counts from its answer, later, so the local
                // answer ends no later than Redis's own would
                asked.rejectedUntil = askedAt - v;
            }
            return new Answer(v, false);
        });
    }

    private static CompletableFuture<Long> takeNow(AsyncBucketProxy bucket) {
        return bucket.tryConsumeAndReturnRemaining(1)
                .thenApply(p -> p.isConsumed() ? 0L : -Math.max(1, p.getNanosToWaitForRefill()));
    }

    /** A delayed zone: a token now, or one reserved on credit if its wait is within the tolerance. */
    private CompletableFuture<Long> takeOrReserve(AsyncBucketProxy bucket) {
        WaitRecorder wait = new WaitRecorder();
        return bucket.asScheduler().tryConsume(1, maxWaitNanos, wait).thenCompose(reserved -> reserved
                ? CompletableFuture.completedFuture(wait.nanos)
                : bucket.estimateAbilityToConsume(1)
                        .thenApply(p -> -Math.max(1, p.getNanosToWaitForRefill() - maxWaitNanos)));
    }

    /**
     * {@code portico:rate-limit:{ZONE:CLIENT}:RATE:CAPACITY:WAIT}. Bucket4j keeps a bucket's configuration with its
     * state in Redis and goes on using it: with the zone's name alone, a rate changed in the configuration would
     * not apply to a client that stayed busy (its key never expires) until the old state was dropped by hand. With
     * the arithmetic in the key, changed settings start fresh buckets (full), instances still on the old ones
     * during a rolling restart keep theirs, and the old keys expire.
     *
     * <p>The braces are a Redis Cluster hash tag: the slot is the hash of {@code ZONE:CLIENT} alone, so every key
     * of one client in one zone (its bucket under each setting, its limit-conn slots) is on one node, and the
     * clients of a zone spread over the cluster. Redis takes the tag up to the first {@code }} after the first
     * {@code {}: a client text holding a brace only narrows the tag, the same for every instance.
     */
    static byte[] redisKey(byte[] prefix, ClientKey key, byte[] suffix) {
        byte[] text = key.toString().getBytes(StandardCharsets.UTF_8);
        byte[] redisKey = new byte[prefix.length + text.length + suffix.length];
        System.arraycopy(prefix, 0, redisKey, 0, prefix.length);
        System.arraycopy(text, 0, redisKey, prefix.length, text.length);
        System.arraycopy(suffix, 0, redisKey, prefix.length + text.length, suffix.length);
        return redisKey;
    }

    private static String keySettings(RateLimitZoneConfig zone, ZoneShape shape) {
        return zone.requests() + "r" + zone.per().toSeconds() + "s:" + shape.servedAtOnce() + ":"
                + TimeUnit.NANOSECONDS.toMillis(shape.longestWaitNanos()) + "ms";
    }

    /** The Redis key of {@code key}'s bucket (tests: which slot it is in). */
    byte[] redisKey(ClientKey key) {
        return redisKey(prefix, key, suffix);
    }

    @Override
    public void giveBack(ClientKey key, Answer answer) {
        if (answer.storeFailed()) {
            if (fallback != null) {
                fallback.giveBack(key, fallbackClock.nanoTime());
            }
            return;
        }
        try {
            bucket(key).proxy.addTokens(1).whenComplete((v, failure) -> {
                if (failure != null) {
                    health.logFailure(failure);
                }
            });
        } catch (RuntimeException e) {
            health.logFailure(e);
        }
    }

    @Override
    public long failures() {
        return health.failures();
    }

    @Override
    public long clients() {
        return proxies.estimatedSize();
    }

    private Handle bucket(ClientKey key) {
        return proxies.get(key, this::newProxy);
    }

    private Handle newProxy(ClientKey key) {
        return new Handle(buckets.builder().withOptimization(Optimizations.batching()).build(redisKey(key),
                configuration), fallbackClock.nanoTime());
    }

    /**
     * A recent client's bucket proxy, and until when Redis's last rejection of it holds (on the fallback clock; a
     * past time when it does not). A race between two answers only stores one of two valid times.
     */
    private static final class Handle {
        final AsyncBucketProxy proxy;
        volatile long rejectedUntil;

        Handle(AsyncBucketProxy proxy, long now) {
            this.proxy = proxy;
            this.rejectedUntil = now;
        }
    }

    private Answer failed(ClientKey key, Throwable failure) {
        health.failed(failure);
        return new Answer(decideWithout(key), true);
    }

    /** The verdict of on-store-failure. */
    private long decideWithout(ClientKey key) {
        return switch (onFailure) {
            case LOCAL -> fallback.take(key, fallbackClock.nanoTime());
            case ALLOW -> 0;
            case REJECT -> -FAILED_RETRY;
        };
    }

    /**
     * Bucket4j reports a reservation's wait by scheduling the future's completion after it; this records the wait
     * and completes at once, so that the event loop's timer does the waiting (as the tests' {@code Bucket4jZoneStore}'s
     * blocking strategy does). Only {@code schedule(Runnable, ...)} is ever called.
     */
    private static final class WaitRecorder extends AbstractExecutorService implements ScheduledExecutorService {
        volatile long nanos;

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            nanos = unit.toNanos(delay);
            command.run();
            return null;
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public void shutdown() {}

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return false;
        }
    }
}
