package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.util.concurrent.Executor;

/**
 * Both zone stores, and the compact one as keep-alive connections use it, so every timeline runs against each.
 */
enum StoreKind {
    COMPACT {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance) {
            return new CompactZoneStore(ZoneShape.of(zone), zone.maxClients(), clock, maintenance);
        }
    },
    /** Each calling thread is one connection: its requests go through its own {@link SlotMemo}. */
    COMPACT_REMEMBERED {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance) {
            return new Remembered(COMPACT.create(zone, clock, maintenance));
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

    /** A store whose callers each have a memo, one per thread. */
    private record Remembered(ZoneStore store, ThreadLocal<SlotMemo> memos) implements ZoneStore {
        Remembered(ZoneStore store) {
            this(store, ThreadLocal.withInitial(SlotMemo::new));
        }

        @Override
        public long take(ClientKey key, long nowNanos) {
            return store.take(key, nowNanos, memos.get());
        }

        @Override
        public void giveBack(ClientKey key, long nowNanos) {
            store.giveBack(key, nowNanos, memos.get());
        }

        @Override
        public long backlogNanos(ClientKey key, long nowNanos) {
            return store.backlogNanos(key, nowNanos);
        }

        @Override
        public long size() {
            return store.size();
        }

        @Override
        public long evictions() {
            return store.evictions();
        }

        @Override
        public void cleanUp() {
            store.cleanUp();
        }
    }
}
