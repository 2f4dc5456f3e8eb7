package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * What one decision of a shared zone costs, as the handler asks it (one request at a time, so each is a full round
 * trip, none batched): {@link RedisZoneStore#take} on a redis-server and on a Redis Cluster of three masters and
 * three replicas, on loopback, over 1,000 clients that the zone always admits. Prints p50, p99, p99.9 and max.
 *
 * <p>Run: {@code mvn -q -o test-compile && java -cp target/test-classes:target/classes:$(cat cp.txt)
 * io.portico.ratelimit.SharedDecisionLatency [DECISIONS]} (cp.txt from {@code mvn dependency:build-classpath}).
 */
public final class SharedDecisionLatency {
    private SharedDecisionLatency() {}

    public static void main(String[] args) throws Exception {
        int decisions = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        RedisServer server = RedisServer.start();
        try (RedisCluster cluster = RedisCluster.start()) {
            measure("redis-server", server.uri(), decisions);
            measure("redis cluster", cluster.uri(), decisions);
        } finally {
            server.stop();
        }
    }

    private static void measure(String what, String uri, int decisions) {
        RateLimitZoneConfig zone = Zones.shared(Zones.nodelay(1_000_000, Zones.SECOND, 1_000_000), "latency", uri);
        try (RedisConnections connections = new RedisConnections()) {
            RedisZoneStore store = new RedisZoneStore(zone, ZoneShape.of(zone),
                    connections.connection("rate-limits.latency", zone.store(), Duration.ofSeconds(2)),
                    NanoClock.WALL, Runnable::run, null, NanoClock.SYSTEM);
            ClientKey[] keys = new ClientKey[1_000];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = ClientKey.text("client-" + i);
            }
            for (int i = 0; i < 20_000; i++) { // warm-up
                store.take(keys[i % keys.length], StoreKind.TIMER).join();
            }
            Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
            long failed = 0;
            for (int i = 0; i < decisions; i++) {
                long start = System.nanoTime();
                SharedZoneStore.Answer answer = store.take(keys[i % keys.length], StoreKind.TIMER).join();
                histogram.recordValue(System.nanoTime() - start);
                failed += answer.storeFailed() ? 1 : 0;
            }
            System.out.printf("%s: %d decisions, p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms, %d failed%n",
                    what, decisions, histogram.getValueAtPercentile(50) / 1e6,
                    histogram.getValueAtPercentile(99) / 1e6, histogram.getValueAtPercentile(99.9) / 1e6,
                    histogram.getMaxValue() / 1e6, failed);
        }
    }
}
