package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;

/** Both zone stores, so every timeline runs against the compact store and the Bucket4j mapping alike. */
enum StoreKind {
    COMPACT {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock) {
            return new CompactZoneStore(ZoneShape.of(zone), zone.maxClients(), clock, Runnable::run);
        }
    },
    BUCKET4J {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock) {
            return new Bucket4jZoneStore(zone, ZoneShape.of(zone), clock, Runnable::run);
        }
    };

    abstract ZoneStore create(RateLimitZoneConfig zone, NanoClock clock);
}
