package io.portico.ratelimit;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.portico.config.LimitConnConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A limit-conn zone's counts in Redis, shared by every instance that names the same store, so that N is the total
 * across them. Each key is a sorted set, {@code portico:limit-conn:{ZONE:CLIENT}}, of the slots taken (one member
 * per request in progress, {@code INSTANCE:N}) scored by when each lease ends, in Redis's own clock (TIME), so the
 * instances' clocks do not matter. Taking a slot is one script: drop the members whose lease has ended, count, add
 * one if under max. The instance renews its members every third of {@code store-lease}; one that stops (crashed,
 * cut off from Redis) holds its slots only until their leases end, then the next take drops them. Releasing is a
 * ZREM. Everything is asynchronous (Lettuce's API): a slot is taken and released through the connection of the event loop
 * that asks, whose answers that loop reads ({@link StoreLanes}), and nothing here waits.
 *
 * <p>The hash tag puts every member of a key in one slot of a Redis Cluster, so the script's one key is on one
 * node. A slot taken when the answer comes too late (store-timeout, counted on the asking event loop's timer, see
 * {@link StoreDeadline}) is released at once, not left to its lease.
 */
final class RedisConnStore {
    /** Drops ended leases, then takes a slot if fewer than ARGV[1] are held: 1 taken, 0 full. */
    private static final RedisScript TAKE = new RedisScript("""
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
            if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
            redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
            if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
            return 1
            """);
    /** Extends the leases of ARGV[2..] that are still held (XX: a released slot is not brought back). */
    private static final String RENEW = """
            local t = redis.call('TIME')
            local lease = tonumber(ARGV[1])
            local ends = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + lease
            for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', ends, ARGV[i]) end
            if redis.call('PTTL', KEYS[1]) < lease then redis.call('PEXPIRE', KEYS[1], lease) end
            return 1
            """;

    /** The script a take runs: loaded at start ({@link StoreWarmUp}); a renewal sends its body (EVAL). */
    static final List<RedisScript> SCRIPTS = List.of(TAKE);

    /** A slot held in Redis: its key and member. Equal only to itself (arrays), which is how {@link #held} keys it. */
    record Slot(byte[] key, byte[] member) {}

    /**
     * A decision: {@code slot} taken in Redis, or null; {@code admitted}; {@code storeFailed} when
     * on-store-failure decided (then a local count may hold the slot, see {@link ConnZone}).
     */
    record Answer(Slot slot, boolean admitted, boolean storeFailed) {}

    private final StoreConnection connection;
    private final byte[] prefix;
    private final String instance;
    private final AtomicLong members = new AtomicLong();
    private final byte[] max;
    private final byte[] leaseMillis;
    private final long timeoutNanos;
    private final StoreHealth health;
    /** The slots this instance holds now, renewed by {@link #renew}. */
    private final Map<Slot, Boolean> held = new ConcurrentHashMap<>();
    /** The take's round-trip histograms (the metrics' once bound; none for tests and tools). */
    private volatile StoreMeters meters = StoreMeters.NONE;

    /** {@code instance}: this process's name among those sharing the store (random per start). */
    RedisConnStore(LimitConnConfig zone, StoreConnection connection, String instance) {
        this.connection = connection;
        this.prefix = ("portico:limit-conn:{" + zone.name() + ":").getBytes(StandardCharsets.UTF_8);
        this.instance = instance;
        this.max = ascii(zone.max());
        this.leaseMillis = ascii(zone.lease().toMillis());
        this.timeoutNanos = zone.store().timeout().toNanos();
        this.health = new StoreHealth("limit-conn." + zone.name(), zone.store());
    }

    /**
     * Takes a slot for {@code key}, or says the key has max; never completes exceptionally: when Redis cannot
     * answer within store-timeout (or is in its failure pause) the answer says {@code storeFailed} and the caller
     * applies on-store-failure.
     */
    CompletableFuture<Answer> take(ClientKey key, ScheduledExecutorService timer) {
        long entered = System.nanoTime();
        byte[] member = (instance + ":" + members.incrementAndGet()).getBytes(StandardCharsets.US_ASCII);
        Slot slot = new Slot(RedisZoneStore.redisKey(prefix, key, new byte[] {'}'}), member);
        int lane = connection.lane(timer);
        String node = connection.nodeOf(slot.key(), lane);
        if (health.paused(node)) {
            health.skipped();
            return CompletableFuture.completedFuture(new Answer(null, false, true));
        }
        StoreMeters m = meters;
        long sent = System.nanoTime();
        CompletableFuture<Long> taken;
        try {
            taken = TAKE.run(connection.commands(lane), slot.key(), max, member, leaseMillis);
        } catch (RuntimeException e) { // refused before it was sent
            health.failed(node, e);
            return CompletableFuture.completedFuture(new Answer(null, false, true));
        }
        return StoreDeadline.race(taken, timer, timeoutNanos, result -> {
            long now = System.nanoTime();
            m.answered(now - sent);
            m.decided(now - entered);
            health.succeeded(node);
            if (result == 1L) {
                held.put(slot, Boolean.TRUE);
                return new Answer(slot, true, false);
            }
            return new Answer(null, false, false);
        }, failure -> {
            m.decided(System.nanoTime() - entered);
            health.failed(node, failure);
            forget(slot); // it may have been taken after all
            return new Answer(null, false, true);
        }, late -> {
            m.answered(System.nanoTime() - sent);
            forget(slot);
        });
    }

    /**
     * Binds the take's round-trip histograms: {@link StoreMeters#answered} for each take's script answered,
     * {@link StoreMeters#decided} for each take that asked Redis. Releases and renewals are not decisions and
     * are not timed.
     */
    void meters(StoreMeters meters) {
        this.meters = meters;
    }

    /** Gives a slot back; does not wait for Redis (a failed release ends with the lease). */
    void release(Slot slot) {
        if (held.remove(slot) != null) {
            forget(slot);
        }
    }

    private void forget(Slot slot) {
        try {
            connection.commands(connection.currentLane()).zrem(slot.key(), slot.member()).whenComplete((n, failure) -> {
                if (failure != null) {
                    health.logFailure(failure);
                }
            });
        } catch (RuntimeException e) {
            health.logFailure(e);
        }
    }

    /** Extends the lease of every slot held, one script per key. Run every third of store-lease. */
    void renew() {
        RedisClusterAsyncCommands<byte[], byte[]> redis = connection.commands(0); // from the renewals' thread
        Map<java.nio.ByteBuffer, List<byte[]>> byKey = new HashMap<>();
        for (Slot slot : held.keySet()) {
            byKey.computeIfAbsent(java.nio.ByteBuffer.wrap(slot.key()), k -> new ArrayList<>()).add(slot.member());
        }
        byKey.forEach((key, members) -> {
            byte[][] args = new byte[members.size() + 1][];
            args[0] = leaseMillis;
            for (int i = 0; i < members.size(); i++) {
                args[i + 1] = members.get(i);
            }
            try {
                redis.<Long>eval(RENEW, ScriptOutputType.INTEGER, new byte[][] {key.array()}, args)
                        .whenComplete((r, failure) -> {
                            if (failure != null) {
                                health.logFailure(failure);
                            }
                        });
            } catch (RuntimeException e) {
                health.logFailure(e);
            }
        });
    }

    /** Slots this instance holds in Redis now. */
    long held() {
        return held.size();
    }

    long failures() {
        return health.failures();
    }

    private static byte[] ascii(long n) {
        return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
    }
}
