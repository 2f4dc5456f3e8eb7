package io.portico.ratelimit;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.netty.channel.ChannelHandler;
import io.portico.config.Cidr;
import io.portico.config.LimitConnConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.exchange.ClientExchange;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The rate-limit and limit-conn zones of a configuration, shared by every event loop, and the factory of the
 * per-channel handler that applies them.
 */
public final class RateLimits implements AutoCloseable {
    private final NanoClock clock;
    private final RedisConnections redis;
    /** This process among the instances sharing a limit-conn zone: its slots in Redis are named after it. */
    private final String instance = Long.toHexString(new java.security.SecureRandom().nextLong());
    /** Renews the leases of shared limit-conn zones; null without any. */
    private ScheduledExecutorService renewals;
    private final Map<String, RateZone> rateZones = new LinkedHashMap<>();
    private final Map<String, ConnZone> connZones = new LinkedHashMap<>();
    private final Map<LocationConfig, LocationLimits> byLocation = new IdentityHashMap<>();
    private final List<Cidr> allowUnlimited;
    /** By zone name, for the zones keyed by the client address. */
    private final Map<String, UntrustedProxyDetector> detectors = new LinkedHashMap<>();
    /** One more than the highest zone index: a zone kept by a reload keeps its index, new ones fill the gaps. */
    private final int memoSlots;

    private RateLimits(PorticoConfig config, NanoClock clock, NanoClock sharedClock, Executor maintenance,
            Scheduler sweeper, RateLimits previous, StoreLoops loops) {
        this.clock = clock;
        this.redis = new RedisConnections(loops);
        this.allowUnlimited = orEmpty(config.allowUnlimited());
        Set<Integer> keptIndexes = new java.util.HashSet<>();
        Map<String, RateZone> kept = new LinkedHashMap<>();
        for (RateLimitZoneConfig zone : orEmpty(config.rateLimits()).values()) {
            RateZone before = previous == null ? null : previous.rateZones.get(zone.name());
            if (before != null && before.config.equals(zone) && !zone.store().shared()) {
                kept.put(zone.name(), before); // same definition: its clients and counters carry on
                keptIndexes.add(before.index);
            }
        }
        int nextIndex = 0;
        try {
            for (RateLimitZoneConfig zone : orEmpty(config.rateLimits()).values()) {
                if (kept.containsKey(zone.name())) {
                    rateZones.put(zone.name(), kept.get(zone.name()));
                    continue;
                }
                while (keptIndexes.contains(nextIndex)) {
                    nextIndex++;
                }
                int index = nextIndex++;
                ZoneShape shape = ZoneShape.of(zone);
                RateLimitZoneConfig.Store store = zone.store();
                // a local zone's buckets, or a shared one's for on-store-failure = local
                ZoneStore local = !store.shared() || store.onFailure() == RateLimitZoneConfig.Failure.LOCAL
                        ? new CompactZoneStore(shape, zone.maxClients(), clock, maintenance, sweeper) : null;
                if (!store.shared()) {
                    rateZones.put(zone.name(), new RateZone(index, zone, local));
                    continue;
                }
                String key = "rate-limits." + zone.name();
                StoreConnection connection = redis.connection(key, store, longestStoreTimeout(config, store.redis()));
                StoreWarmUp.warm(key, connection, RedisZoneStore.SCRIPTS);
                RedisZoneStore shared = new RedisZoneStore(zone, shape, connection, sharedClock, maintenance, local,
                        clock);
                StoreWarmUp.onStoreFailure(key, connection, shared::warmOnStoreFailure);
                rateZones.put(zone.name(), new RateZone(index, zone, shared));
            }
        } catch (RuntimeException e) {
            redis.close();
            throw e;
        }
        Set<InetAddress> warned = ConcurrentHashMap.newKeySet();
        rateZones.forEach((name, zone) -> {
            if (zone.key.usesClientIp()) {
                detectors.put(name, new UntrustedProxyDetector(
                        name, zone.counters, orEmpty(config.trustedProxies()), warned));
            }
        });
        try {
            for (LimitConnConfig zone : orEmpty(config.limitConn()).values()) {
                ConnZone before = previous == null ? null : previous.connZones.get(zone.name());
                if (zone.store().shared()) {
                    // its counts are in Redis under this instance's leases; its connection is opened anew
                    connZones.put(zone.name(), sharedZone(config, zone));
                } else {
                    // same definition: the requests in progress it counts (and will be given back) stay counted
                    connZones.put(zone.name(),
                            before != null && before.config.equals(zone) ? before : new ConnZone(zone));
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        this.memoSlots = rateZones.values().stream().mapToInt(z -> z.index + 1).max().orElse(0);
        for (LocationConfig location : orEmpty(config.allLocations())) {
            byLocation.put(location, resolve(location));
        }
    }

    /**
     * The zones of {@code config} on the system clock. Cache upkeep runs off the event loops (a sweep after a
     * spray of addresses can expire many clients at once) on {@link ZoneUpkeep}'s thread, and idle clients are
     * swept even without traffic.
     */
    public static RateLimits create(PorticoConfig config) {
        return create(config, null, null);
    }

    /** As {@link #create(PorticoConfig, RateLimits, StoreLoops)}, shared zones on a Lettuce thread of their own. */
    public static RateLimits create(PorticoConfig config, RateLimits previous) {
        return create(config, previous, null);
    }

    /**
     * As {@link #create(PorticoConfig)}, for a reload: a local zone (rate-limit or limit-conn) whose definition is
     * the same in {@code previous} is taken over whole, with its clients, so a client held at its limit stays
     * held; a changed or new zone starts empty. A shared zone's clients are in Redis and carry over anyway; its
     * connection is opened anew. {@code previous} keeps working for the requests already in it.
     *
     * <p>{@code loops}: the server's event loops, on which the connections of shared zones run, one per loop and
     * store, so that a decision's command and reply stay on the loop that asks (see {@link StoreLanes}); null runs
     * them on a Lettuce I/O thread of their own. Called off those loops: the connections are opened here, and
     * waited for.
     */
    public static RateLimits create(PorticoConfig config, RateLimits previous, StoreLoops loops) {
        return new RateLimits(config, NanoClock.SYSTEM, NanoClock.WALL, ZoneUpkeep.SHARED,
                Scheduler.systemScheduler(), previous, loops);
    }

    /**
     * Tests: a manual clock (shared zones read it too), and upkeep on the calling thread only, so expiry and
     * eviction are deterministic.
     */
    static RateLimits create(PorticoConfig config, NanoClock clock) {
        return new RateLimits(config, clock, clock, Runnable::run, Scheduler.disabledScheduler(),
                null, null);
    }

    /** The longest store-timeout of the rate-limit and limit-conn zones on {@code store}: Lettuce's bound. */
    private static Duration longestStoreTimeout(PorticoConfig config, java.net.URI store) {
        return java.util.stream.Stream.concat(
                        orEmpty(config.rateLimits()).values().stream().map(RateLimitZoneConfig::store),
                        orEmpty(config.limitConn()).values().stream().map(LimitConnConfig::store))
                .filter(s -> store.equals(s.redis()))
                .map(RateLimitZoneConfig.Store::timeout)
                .max(Duration::compareTo)
                .orElseThrow();
    }

    /**
     * A shared limit-conn zone, its on-store-failure path warmed; its Redis counts renewed every third of its lease
     * on one daemon thread (a renewal is a few asynchronous commands: the thread never waits for Redis).
     */
    private ConnZone sharedZone(PorticoConfig config, LimitConnConfig zone) {
        String key = "limit-conn." + zone.name();
        StoreConnection connection = redis.connection(key, zone.store(),
                longestStoreTimeout(config, zone.store().redis()));
        StoreWarmUp.warm(key, connection, RedisConnStore.SCRIPTS);
        RedisConnStore store = new RedisConnStore(zone, connection, instance);
        ConnZone shared = new ConnZone(zone, store);
        StoreWarmUp.onStoreFailure(key, connection, shared::warmOnStoreFailure);
        if (renewals == null) {
            renewals = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "portico-limit-conn-leases");
                t.setDaemon(true);
                return t;
            });
        }
        long every = Math.max(1, zone.lease().toMillis() / 3);
        renewals.scheduleAtFixedRate(store::renew, every, every, TimeUnit.MILLISECONDS);
        return shared;
    }

    /** Stops renewing limit-conn leases, then closes the connections of shared zones. */
    @Override
    public void close() {
        if (renewals != null) {
            renewals.shutdownNow();
        }
        redis.close();
    }

    /** A new handler for one client channel; placed after routing, before the exchange handler. */
    public ChannelHandler newHandler() {
        return new RateLimitHandler(client -> this);
    }

    /**
     * A handler for one client channel whose requests may each be under another configuration (a reload):
     * {@code limitsOfRequest} gives the zones of the request's own configuration.
     */
    public static ChannelHandler newHandler(Function<ClientExchange, RateLimits> limitsOfRequest) {
        return new RateLimitHandler(limitsOfRequest);
    }

    /** Names of the zones (rate-limit and limit-conn) this instance took over from {@code previous}. */
    public List<String> keptFrom(RateLimits previous) {
        List<String> out = new ArrayList<>();
        rateZones.forEach((name, zone) -> {
            if (previous != null && previous.rateZones.get(name) == zone) {
                out.add(name);
            }
        });
        connZones.forEach((name, zone) -> {
            if (previous != null && previous.connZones.get(name) == zone) {
                out.add(name);
            }
        });
        return out;
    }

    NanoClock clock() {
        return clock;
    }

    /** One line per zone of {@code config}, for {@code portico check} (which connects to no store). */
    public static List<String> describe(PorticoConfig config) {
        List<String> lines = new ArrayList<>();
        orEmpty(config.rateLimits()).values().forEach(zone -> lines.add(ZoneDescription.of(zone)));
        orEmpty(config.limitConn()).values().forEach(zone -> lines.add(ZoneDescription.of(zone)));
        return lines;
    }

    /**
     * The heap {@code config}'s rate-limit zones hold when every one is full ({@code max-clients} clients, at the
     * measured bytes per client). A zone kept in Redis counts for its fallback store when {@code on-store-failure}
     * is {@code local} (it fills during an outage); the clients it remembers (a Redis key and a time each) are not
     * counted (not measured).
     */
    public static long heapBytes(PorticoConfig config) {
        return orEmpty(config.rateLimits()).values().stream()
                .filter(z -> !z.store().shared() || z.store().onFailure() == RateLimitZoneConfig.Failure.LOCAL)
                .mapToLong(z -> CompactZoneStore.fullBytes(z.maxClients()))
                .sum();
    }

    /** Each rate-limit zone's counters, by zone name. */
    public Map<String, ZoneCounters> rateLimitCounters() {
        Map<String, ZoneCounters> counters = new LinkedHashMap<>();
        rateZones.forEach((name, zone) -> counters.put(name, zone.counters));
        return Collections.unmodifiableMap(counters);
    }

    /**
     * Binds each zone kept in Redis to the meters its kind's function gives for its name (the metrics' round-trip
     * histograms, one family per kind: a rate-limit zone and a limit-conn zone may share a name): called when this
     * generation becomes the current one. Local zones have no round trip.
     */
    public void bindStoreMeters(Function<String, StoreMeters> rateZone, Function<String, StoreMeters> connZone) {
        rateZones.forEach((name, zone) -> {
            if (zone.shared != null) {
                zone.shared.meters(rateZone.apply(name));
            }
        });
        connZones.forEach((name, zone) -> {
            if (zone.shared != null) {
                zone.shared.meters(connZone.apply(name));
            }
        });
    }

    /** Each limit-conn zone's counters ({@code clients} is the keys with a request in progress), by zone name. */
    public Map<String, ZoneCounters> limitConnCounters() {
        Map<String, ZoneCounters> counters = new LinkedHashMap<>();
        connZones.forEach((name, zone) -> counters.put(name, zone.counters));
        return Collections.unmodifiableMap(counters);
    }

    LocationLimits forLocation(LocationConfig location) {
        LocationLimits limits = byLocation.get(location);
        return limits != null || location == null ? limits : resolve(location);
    }

    /** The length of a connection's memo array ({@link RateZone#index} is below it). */
    int rateZoneCount() {
        return memoSlots;
    }

    RateZone rateZone(String name) {
        return rateZones.get(name);
    }

    ConnZone connZone(String name) {
        return connZones.get(name);
    }

    private LocationLimits resolve(LocationConfig location) {
        List<RateZone> rate = new ArrayList<>();
        List<UntrustedProxyDetector> watched = new ArrayList<>();
        for (String name : orEmpty(location.rateLimits())) {
            rate.add(require(rateZones.get(name), "rateLimits", name, location));
            if (detectors.containsKey(name)) {
                watched.add(detectors.get(name));
            }
        }
        List<ConnZone> conn = new ArrayList<>();
        for (String name : orEmpty(location.limitConn())) {
            conn.add(require(connZones.get(name), "limitConn", name, location));
        }
        return new LocationLimits(rate, conn, allowUnlimited, watched);
    }

    private static <T> T require(T zone, String field, String name, LocationConfig location) {
        if (zone == null) {
            throw new IllegalArgumentException(String.format(
                    "%s: %s (expected: a zone defined in %s) in location %s", field, name, field, location.match()));
        }
        return zone;
    }

    private static <T> List<T> orEmpty(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static <K, V> Map<K, V> orEmpty(Map<K, V> map) {
        return map == null ? Map.of() : map;
    }
}
