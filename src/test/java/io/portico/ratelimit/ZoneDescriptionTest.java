package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.MINUTE;
import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.config.LimitConnConfig;
import io.portico.config.RateLimitZoneConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class ZoneDescriptionTest {
    private static final long MIB_FOR_A_MILLION = (1_000_000 * CompactZoneStore.BYTES_PER_CLIENT + (1 << 19)) >> 20;

    @Test
    void nodelay() {
        assertThat(ZoneDescription.of(Zones.nodelay(50, SECOND, 20))).isEqualTo(
                "allips: 21 requests at once, then 1 every 20 ms; a client is forgotten after 420 ms idle;"
                        + " at most 1,000,000 clients, about " + MIB_FOR_A_MILLION + " MiB");
    }

    @Test
    void delayed() {
        assertThat(ZoneDescription.of(Zones.delayed(1, SECOND, 5, 0))).startsWith(
                "allips: 1 request at once, the next 5 delayed (at most 5 s), then 1 every 1 s;"
                        + " a client is forgotten after 6 s idle;");
        assertThat(ZoneDescription.of(Zones.dryRun(Zones.delayed(1, MINUTE, 0, 0))))
                .contains("then 1 every 1 min; a client is forgotten after 1 min idle")
                .endsWith("; dry run: counts, limits nothing");
    }

    @Test
    void limitConn() {
        assertThat(ZoneDescription.of(new LimitConnConfig("perip", "client-ip", 10, 503)))
                .isEqualTo("perip: at most 10 requests in progress per client-ip, the rest answered 503");
    }

    @Test
    void aSharedZoneSaysWhereItsStateIsAndWhatAnOutageGets() {
        RateLimitZoneConfig z = Zones.nodelay(50, SECOND, 20);
        RateLimitZoneConfig shared = new RateLimitZoneConfig(z.name(), z.key(), z.requests(), z.per(), z.burst(),
                z.nodelay(), z.delay(), z.status(), z.maxClients(), z.dryRun(), z.ipv6Prefix(), z.headers(),
                new RateLimitZoneConfig.Store(java.net.URI.create("redis://:secret@cache:6379/2"),
                        java.time.Duration.ofMillis(50), RateLimitZoneConfig.Failure.REJECT));
        assertThat(ZoneDescription.of(shared)).isEqualTo("allips: 21 requests at once, then 1 every 20 ms;"
                + " a client is forgotten after 420 ms idle; shared in Redis at redis://cache:6379/2"
                + " (decided within 50 ms, else rejected)");
    }

    @Test
    void aSharedLimitConnZoneSaysWhereItCountsAndItsLease() {
        LimitConnConfig conn = new LimitConnConfig("perip", "client-ip", 10, 503, 64,
                new RateLimitZoneConfig.Store(java.net.URI.create("redis-cluster://:secret@r1:7000,r2:7000"),
                        java.time.Duration.ofMillis(50), RateLimitZoneConfig.Failure.LOCAL),
                java.time.Duration.ofSeconds(10));
        assertThat(ZoneDescription.of(conn)).isEqualTo("perip: at most 10 requests in progress per client-ip, the"
                + " rest answered 503; counted across instances in Redis at redis-cluster://r1:7000,r2:7000 (a dead"
                + " instance's slots freed after 10 s; decided within 50 ms, else counted by this instance alone)");
    }

    @Test
    void everyZoneOfAConfigurationGetsALine() {
        LimitConnConfig conn = new LimitConnConfig("perip", "client-ip", 10, 503);
        assertThat(RateLimits.describe(Configs.config(List.of(Zones.nodelay(50, SECOND, 20)), List.of(conn),
                List.of(), Configs.location(List.of("allips"), List.of("perip"))))).containsExactly(
                ZoneDescription.of(Zones.nodelay(50, SECOND, 20)), ZoneDescription.of(conn));
    }

    @Test
    void unknownZoneNamesAreRefused() {
        assertThatThrownBy(() -> RateLimits.create(Configs.config(List.of(), List.of(), List.of(),
                        Configs.location(List.of("nosuch"), List.of()))))
                .hasMessage("rateLimits: nosuch (expected: a zone defined in rateLimits) in location /");
    }

    @Test
    void durations() {
        assertThat(ZoneDescription.duration(62_500_000_000L)).isEqualTo("62.5 s");
        assertThat(ZoneDescription.duration(333_333_333L)).isEqualTo("333.333 ms");
        assertThat(ZoneDescription.duration(500_000L)).isEqualTo("500 µs");
    }
}
