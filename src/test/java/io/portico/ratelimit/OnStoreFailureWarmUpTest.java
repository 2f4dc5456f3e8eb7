package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.LimitConnConfig;
import io.portico.config.RateLimitZoneConfig;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A shared zone's on-store-failure path has run once when the zone is built, before any request and any failure
 * ({@link StoreWarmUp#onStoreFailure}), and left nothing a client can see: no failure counted, no slot held, and a
 * fallback bucket for the warm-up key that admits as a new one does.
 */
class OnStoreFailureWarmUpTest {
    private final ManualClock clock = new ManualClock();
    private RedisServer redis;

    @AfterEach
    void stop() {
        if (redis != null) {
            redis.stop();
        }
    }

    @Test
    void aRateZonesFallbackBucketExistsBeforeTheFirstFailure() throws Exception {
        redis = RedisServer.start();
        RateLimitZoneConfig zone = shared(Zones.nodelay(1, Duration.ofMinutes(1), 0), redis.uri());
        try (RateLimits limits = RateLimits.create(
                Configs.config(List.of(zone), List.of(), List.of(), Configs.location(List.of(zone.name()), List.of())),
                clock)) {
            RedisZoneStore store = (RedisZoneStore) limits.rateZone(zone.name()).shared;
            CompactZoneStore fallback = (CompactZoneStore) store.fallback();
            assertThat(fallback.holds(StoreWarmUp.KEY)).as("on-store-failure = local ran at start").isTrue();
            assertThat(fallback.backlogNanos(StoreWarmUp.KEY, clock.nanoTime()))
                    .as("its charge given back: a full bucket, as a new key's").isZero();
            assertThat(store.failures()).as("not a failure").isZero();
            assertThat(store.clients()).as("no client asked about").isZero();

            redis.stop(); // the first real failure takes the warmed path, and is counted
            ClientKey client = ClientKey.ipv4(0x7f000001);
            SharedZoneStore.Answer answer = store.take(client, StoreKind.TIMER).get(10, TimeUnit.SECONDS);
            assertThat(answer.storeFailed()).isTrue();
            assertThat(answer.verdict()).as("decided by the fallback bucket").isZero();
            assertThat(fallback.holds(client)).isTrue();
            assertThat(store.failures()).isEqualTo(1);
        }
    }

    @Test
    void aConnZonesWarmUpHoldsNoSlot() throws Exception {
        redis = RedisServer.start();
        LimitConnConfig zone = new LimitConnConfig("perip", "client-ip", 1, 429, 64,
                new RateLimitZoneConfig.Store(URI.create(redis.uri()), Duration.ofMillis(500),
                        RateLimitZoneConfig.Failure.LOCAL), Duration.ofSeconds(10));
        try (RateLimits limits = RateLimits.create(
                Configs.config(List.of(), List.of(zone), List.of(), Configs.location(List.of(), List.of("perip"))),
                clock)) {
            ConnZone conn = limits.connZone("perip");
            assertThat(conn.inProgress(StoreWarmUp.KEY)).as("taken and released at start").isZero();
            assertThat(conn.shared.held()).isZero();
            assertThat(conn.shared.failures()).as("not a failure").isZero();
            // the whole max of 1 is there for the first client once Redis fails: the warm-up key held nothing
            redis.stop();
            ClientKey client = ClientKey.ipv4(0x7f000001);
            LocationLimits.Lease lease = conn.acquireShared(client, StoreKind.TIMER).get(10, TimeUnit.SECONDS);
            assertThat(lease).isNotNull();
            assertThat(lease.local()).as("on-store-failure = local's own count").isTrue();
            assertThat(conn.shared.failures()).isEqualTo(1);
        }
    }

    private static RateLimitZoneConfig shared(RateLimitZoneConfig z, String uri) {
        return new RateLimitZoneConfig(z.name(), z.key(), z.requests(), z.per(), z.burst(), z.nodelay(), z.delay(),
                z.status(), z.maxClients(), z.dryRun(), z.ipv6Prefix(), z.headers(),
                new RateLimitZoneConfig.Store(URI.create(uri), Duration.ofMillis(500),
                        RateLimitZoneConfig.Failure.LOCAL));
    }
}
