package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.time.Duration;

/** Zone configs for tests, named like nginx writes them. */
final class Zones {
    private Zones() {}

    static RateLimitZoneConfig nodelay(long requests, Duration per, int burst) {
        return zone(requests, per, burst, true, 0);
    }

    static RateLimitZoneConfig delayed(long requests, Duration per, int burst, int delay) {
        return zone(requests, per, burst, false, delay);
    }

    static RateLimitZoneConfig zone(long requests, Duration per, int burst, boolean nodelay, int delay) {
        return new RateLimitZoneConfig(
                "allips", "client-ip", requests, per, burst, nodelay, delay, 429, 1_000_000, false, 64,
                RateLimitZoneConfig.Headers.ON_REJECT);
    }

    static RateLimitZoneConfig withMaxClients(RateLimitZoneConfig z, long maxClients) {
        return new RateLimitZoneConfig(z.name(), z.key(), z.requests(), z.per(), z.burst(), z.nodelay(), z.delay(),
                z.status(), maxClients, z.dryRun(), z.ipv6Prefix(), z.headers());
    }

    static RateLimitZoneConfig dryRun(RateLimitZoneConfig z) {
        return new RateLimitZoneConfig(z.name(), z.key(), z.requests(), z.per(), z.burst(), z.nodelay(), z.delay(),
                z.status(), z.maxClients(), true, z.ipv6Prefix(), z.headers());
    }

    static RateLimitZoneConfig named(RateLimitZoneConfig z, String name, String key) {
        return new RateLimitZoneConfig(name, key, z.requests(), z.per(), z.burst(), z.nodelay(), z.delay(),
                z.status(), z.maxClients(), z.dryRun(), z.ipv6Prefix(), z.headers());
    }

    static RateLimitZoneConfig withoutHeaders(RateLimitZoneConfig z) {
        return withHeaders(z, RateLimitZoneConfig.Headers.OFF);
    }

    static RateLimitZoneConfig withHeaders(RateLimitZoneConfig z, RateLimitZoneConfig.Headers headers) {
        return new RateLimitZoneConfig(z.name(), z.key(), z.requests(), z.per(), z.burst(), z.nodelay(), z.delay(),
                z.status(), z.maxClients(), z.dryRun(), z.ipv6Prefix(), headers);
    }

    /** {@code z} kept in the Redis at {@code uri}, under {@code name}; a store failure fails open after 2 s. */
    static RateLimitZoneConfig shared(RateLimitZoneConfig z, String name, String uri) {
        return new RateLimitZoneConfig(name, z.key(), z.requests(), z.per(), z.burst(), z.nodelay(), z.delay(),
                z.status(), z.maxClients(), z.dryRun(), z.ipv6Prefix(), z.headers(),
                new RateLimitZoneConfig.Store(java.net.URI.create(uri), Duration.ofSeconds(2),
                        RateLimitZoneConfig.Failure.ALLOW));
    }

    static final Duration SECOND = Duration.ofSeconds(1);
    static final Duration MINUTE = Duration.ofMinutes(1);
}
