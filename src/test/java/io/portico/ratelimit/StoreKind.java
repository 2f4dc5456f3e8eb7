package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every zone store, and the compact one as keep-alive connections use it, so every timeline runs against each.
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
    },
    /**
     * The shared store on a real Redis (skipped without {@code redis-server}), each store under a zone name of its
     * own, waited for by the calling thread. It counts no clients and evicts none: Redis expires its keys.
     */
    REDIS {
        @Override
        ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance) {
            RateLimitZoneConfig shared =
                    Zones.shared(zone, zone.name() + "-" + STORES.incrementAndGet(), RedisServer.shared().uri());
            return new Waited(new RedisZoneStore(shared, ZoneShape.of(shared), connections().connection(
                    "rate-limits." + shared.name(), shared.store(), shared.store().timeout()), clock,
                    maintenance, null, clock));
        }
    };

    private static final AtomicInteger STORES = new AtomicInteger();
    /** The store-timeout's timer of {@link Waited} stores, as an event loop's is the server's. */
    static final java.util.concurrent.ScheduledExecutorService TIMER =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "store-timeout-timer");
                t.setDaemon(true);
                return t;
            });
    private static RedisConnections connections;

    /** One connection for every test store of the JVM, closed when it exits. */
    private static synchronized RedisConnections connections() {
        if (connections == null) {
            connections = new RedisConnections();
            RedisConnections opened = connections;
            Runtime.getRuntime().addShutdownHook(new Thread(opened::close, "redis-connections-close"));
        }
        return connections;
    }

    abstract ZoneStore create(RateLimitZoneConfig zone, NanoClock clock, Executor maintenance);

    /** Tests: cache maintenance on the calling thread, so expiry and eviction are deterministic. */
    ZoneStore create(RateLimitZoneConfig zone, NanoClock clock) {
        return create(zone, clock, Runnable::run);
    }

    /** A shared store as a local one: the caller waits for each answer (tests only; an event loop never does). */
    private record Waited(SharedZoneStore store) implements ZoneStore {
        @Override
        public long take(ClientKey key, long nowNanos) {
            SharedZoneStore.Answer answer = store.take(key, TIMER).join();
            if (answer.storeFailed()) {
                throw new AssertionError("the Redis store did not answer");
            }
            return answer.verdict();
        }

        @Override
        public void giveBack(ClientKey key, long nowNanos) {
            store.giveBack(key, new SharedZoneStore.Answer(0, false));
        }

        @Override
        public long backlogNanos(ClientKey key, long nowNanos) {
            throw new UnsupportedOperationException("a shared zone does not read a key's state back");
        }

        @Override
        public long size() {
            return 0;
        }

        @Override
        public long evictions() {
            return 0;
        }

        @Override
        public void cleanUp() {}
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
