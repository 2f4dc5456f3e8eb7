package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.util.concurrent.Executor;

/** Both zone stores, so every timeline runs against the compact store and the Bucket4j mapping alike. */
enum StoreKind {
    COMPACT {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance) {
            return new CompactZoneStore(ZoneShape.of(zone), zone.maxClients(), clock, maintenance);
        }
    },
    BUCKET4J {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance) {
            return new Bucket4jZoneStore(zone, ZoneShape.of(zone), clock, maintenance);
        }
    };

    abstract ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance);

    /** Tests: cache maintenance on the calling thread, so expiry and eviction are deterministic. */
    ZoneStore create(RateLimitZoneConfig zone, NanoClock clock) {
        return create(zone, clock, Runnable::run);
    }
}
