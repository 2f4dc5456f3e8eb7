package io.portico.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.portico.config.RateLimitZoneConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A zone whose buckets live in Redis, one key per client, shared by every instance that names the same store:
 * {@link CompactZoneStore}'s arithmetic (the key's theoretical arrival time, GCRA, which is nginx's
 * {@code excess} and {@code last} folded together) run by one Lua script in Redis, so a decision is one round trip
 * and atomic: admitting and charging are one step whatever the other instances send meanwhile, with no
 * compare-and-swap to lose and retry. Bucket4j's compare-and-swap buckets, used before, needed a GET and a swap per
 * decision and retried every swap another instance had overtaken: three instances racing one client's key took
 * 120-220 ms to decide 300 requests on a quiet machine, long enough for a 10r/s bucket to earn a seventh token.
 * Asked and answered on the asking event loop (its own connection, see {@link StoreLanes}), or at the zone's
 * store-timeout on that loop's timer ({@link StoreDeadline}); nothing here waits.
 *
 * <p>Time is the instances' wall clock, in nanoseconds, sent with each command (tests send a manual one), so
 * instances sharing a zone must keep their clocks in step (NTP): a skew of d lets a bucket refill d early or late.
 * The script keeps them exact although Lua's numbers are doubles: times are split into seconds and nanoseconds.
 * A key expires once its bucket would be full again, plus a second, so Redis holds only the clients seen recently.
 */
final class RedisZoneStore implements SharedZoneStore {
    private static final long FAILED_RETRY = TimeUnit.SECONDS.toNanos(1);

    /** Times in ARGV and in the key are decimal nanoseconds since the epoch, split so doubles hold them exactly. */
    private static final String TIME = """
            local function split(s)
              local n = #s
              if n <= 9 then return 0, tonumber(s) end
              return tonumber(string.sub(s, 1, n - 9)), tonumber(string.sub(s, n - 8))
            end
            local function join(hi, lo)
              hi = hi + math.floor(lo / 1e9)
              lo = lo % 1e9
              if hi == 0 then return string.format('%d', lo) end
              return string.format('%d%09d', hi, lo)
            end
            """;

    /**
     * ARGV: now, T, burst * T, the backlog served without waiting ({@link ZoneShape}). Returns the verdict as
     * {@link ZoneStore} encodes it: the wait of an admitted request ({@code >= 0}), or minus the time until one
     * would be admitted. The key holds the arrival time of the key's next request, {@code max(tat, now) + T}.
     */
    static final RedisScript TAKE = new RedisScript(TIME + """
            local nowHi, nowLo = split(ARGV[1])
            local backlog = 0
            local stored = redis.call('GET', KEYS[1])
            if stored then
              local hi, lo = split(stored)
              backlog = (hi - nowHi) * 1e9 + (lo - nowLo)
              if backlog < 0 then backlog = 0 end
            end
            local tolerance = tonumber(ARGV[3])
            if backlog > tolerance then return -(backlog - tolerance) end
            local ahead = backlog + tonumber(ARGV[2])
            redis.call('SET', KEYS[1], join(nowHi, nowLo + ahead), 'PX', math.floor(ahead / 1e6) + 1001)
            local wait = backlog - tonumber(ARGV[4])
            if wait < 0 then return 0 end
            return wait
            """);
    /** ARGV: T. Gives one request's charge back (another zone rejected it); its expiry stays. */
    static final RedisScript GIVE_BACK = new RedisScript(TIME + """
            local stored = redis.call('GET', KEYS[1])
            if not stored then return 0 end
            local hi, lo = split(stored)
            redis.call('SET', KEYS[1], join(hi, lo - tonumber(ARGV[1])), 'KEEPTTL')
            return 1
            """);

    /** The scripts a decision or a give-back runs: loaded at start ({@link StoreWarmUp}). */
    static final List<RedisScript> SCRIPTS = List.of(TAKE, GIVE_BACK);

    private final String name;
    /** {@code portico:rate-limit:{ZONE:}, then the client, then {@link #suffix}: see {@link #redisKey}. */
    private final byte[] prefix;
    private final byte[] suffix;
    private final StoreConnection connection;
    private final byte[] interval;
    private final byte[] tolerance;
    private final byte[] immediate;
    private final long timeoutNanos;
    private final NanoClock clock;
    /** The clients asked about recently, and until when Redis's last rejection of each holds. */
    private final Cache<ClientKey, Handle> recent;
    private final RateLimitZoneConfig.Failure onFailure;
    /** This instance's own buckets, which decide while Redis cannot ({@code on-store-failure = local}); else null. */
    private final ZoneStore fallback;
    private final NanoClock fallbackClock;
    /** Failures, and each node's pause after store-failure-threshold of them in a row. */
    private final StoreHealth health;
    /** The round-trip histograms (the metrics' once bound; none for tests and tools). */
    private volatile StoreMeters meters = StoreMeters.NONE;

    /**
     * {@code clock}: the instances' shared time (the wall clock; tests give a manual one, see {@link RateLimits}).
     * {@code fallback} (read on {@code fallbackClock}) decides when Redis cannot and the zone says
     * {@code on-store-failure = local}. The clients are remembered for the zone's forget-after, at most
     * {@code max-clients} of them; a dropped one loses nothing (the state is in Redis).
     */
    RedisZoneStore(RateLimitZoneConfig zone, ZoneShape shape, StoreConnection connection, NanoClock clock,
            Executor maintenance, ZoneStore fallback, NanoClock fallbackClock) {
        this.name = zone.name();
        this.prefix = ("portico:rate-limit:{" + zone.name() + ":").getBytes(StandardCharsets.UTF_8);
        this.suffix = ("}:" + keySettings(shape)).getBytes(StandardCharsets.UTF_8);
        this.connection = connection;
        this.interval = RedisScript.ascii(shape.intervalNanos());
        this.tolerance = RedisScript.ascii(shape.toleranceNanos());
        this.immediate = RedisScript.ascii(shape.immediateNanos());
        this.timeoutNanos = zone.store().timeout().toNanos();
        this.clock = clock;
        this.recent = Caffeine.newBuilder()
                .maximumSize(zone.maxClients())
                .expireAfterAccess(Duration.ofNanos(shape.forgetAfterNanos()))
                .executor(maintenance)
                .build();
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
     * lenient. During the pause of the key's node, on-store-failure decides at once.
     *
     * <p>{@code timer}: the asking event loop's, on which store-timeout is counted from now. A charge Redis makes
     * after the timeout decided is given back.
     */
    @Override
    public CompletableFuture<Answer> take(ClientKey key, ScheduledExecutorService timer) {
        long entered = System.nanoTime(); // store-timeout counts from here, not from when the command was sent
        Handle handle = recent.getIfPresent(key);
        if (handle != null) {
            long left = handle.rejectedUntil - fallbackClock.nanoTime();
            if (left > 0) {
                return CompletableFuture.completedFuture(new Answer(-left, false));
            }
        } else {
            handle = recent.get(key.copy(), k -> new Handle(redisKey(k), fallbackClock.nanoTime()));
        }
        Handle asked = handle;
        int lane = connection.lane(timer); // the asking loop's connection: it writes the command and reads the reply
        String node = connection.nodeOf(asked.redisKey, lane);
        if (health.paused(node)) {
            health.skipped();
            return CompletableFuture.completedFuture(new Answer(decideWithout(key), true));
        }
        long askedAt = fallbackClock.nanoTime();
        StoreMeters m = meters;
        long sent = System.nanoTime();
        CompletableFuture<Long> reply;
        try {
            reply = TAKE.run(connection.commands(lane), asked.redisKey, RedisScript.ascii(clock.nanoTime()), interval, tolerance,
                    immediate);
        } catch (RuntimeException e) { // the client refused the command before sending it
            return CompletableFuture.completedFuture(failed(node, key, e));
        }
        // what was spent here before the command left (the key's routing, Lettuce's write: 0.1-2.3 ms measured in a
        // failover) is part of the request's wait, so the deadline is that much sooner
        long remaining = timeoutNanos - (System.nanoTime() - entered);
        return StoreDeadline.race(reply, timer, Math.max(remaining, 0), v -> {
            long now = System.nanoTime();
            m.answered(now - sent);
            m.decided(now - entered);
            health.succeeded(node);
            if (v < 0) {
                // counted from when Redis was asked: its wait counts from its answer, later, so the local
                // answer ends no later than Redis's own would
                asked.rejectedUntil = askedAt - v;
            }
            return new Answer(v, false);
        }, failure -> {
            m.decided(System.nanoTime() - entered);
            return failed(node, key, failure);
        }, late -> {
            m.answered(System.nanoTime() - sent);
            if (late >= 0) {
                giveBackToRedis(asked.redisKey); // on-store-failure decided this request instead
            }
        });
    }

    /**
     * {@code portico:rate-limit:{ZONE:CLIENT}:gcra:T:TOLERANCE:IMMEDIATE} (nanoseconds). The arithmetic is in the
     * key: changed settings start fresh buckets (full), instances still on the old ones during a rolling restart
     * keep theirs, and the old keys expire. ({@code gcra}: the keys of Bucket4j's buckets, used before, held
     * another format and are never read as this one.)
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

    private static String keySettings(ZoneShape shape) {
        return "gcra:" + shape.intervalNanos() + ":" + shape.toleranceNanos() + ":" + shape.immediateNanos();
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
        Handle handle = recent.getIfPresent(key);
        giveBackToRedis(handle != null ? handle.redisKey : redisKey(key));
    }

    private void giveBackToRedis(byte[] redisKey) {
        try {
            GIVE_BACK.run(connection.commands(connection.currentLane()), redisKey, interval).whenComplete((v, failure) -> {
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
        return recent.estimatedSize();
    }

    @Override
    public void meters(StoreMeters meters) {
        this.meters = meters;
    }

    /**
     * A recent client's Redis key (built once), and until when Redis's last rejection of it holds (on the fallback
     * clock; a past time when none does). A race between two answers only stores one of two valid times.
     */
    private static final class Handle {
        final byte[] redisKey;
        volatile long rejectedUntil;

        Handle(byte[] redisKey, long now) {
            this.redisKey = redisKey;
            this.rejectedUntil = now;
        }
    }

    private Answer failed(String node, ClientKey key, Throwable failure) {
        health.failed(node, failure);
        return new Answer(decideWithout(key), true);
    }

    /**
     * At start: on-store-failure's verdict for {@link StoreWarmUp#KEY}, its charge (on-store-failure = local)
     * given back, so the fallback bucket and the path to it exist before the first failure
     * ({@link StoreWarmUp#onStoreFailure}). The zone's failures and health are not touched.
     */
    void warmOnStoreFailure() {
        if (decideWithout(StoreWarmUp.KEY) >= 0 && fallback != null) {
            fallback.giveBack(StoreWarmUp.KEY, fallbackClock.nanoTime());
        }
    }

    /** {@code on-store-failure = local}'s buckets, or null (tests: what the warm-up left there). */
    ZoneStore fallback() {
        return fallback;
    }

    /** The verdict of on-store-failure. */
    private long decideWithout(ClientKey key) {
        return switch (onFailure) {
            case LOCAL -> fallback.take(key, fallbackClock.nanoTime());
            case ALLOW -> 0;
            case REJECT -> -FAILED_RETRY;
        };
    }

    @Override
    public String toString() {
        return "RedisZoneStore[" + name + "]";
    }
}
