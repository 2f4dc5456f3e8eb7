package io.portico.ratelimit;

import com.github.benmanes.caffeine.cache.Scheduler;
import io.github.bucket4j.TimeMeter;
import io.netty.channel.ChannelHandler;
import io.portico.config.Cidr;
import io.portico.config.LimitConnConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
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

/**
 * The rate-limit and limit-conn zones of a configuration, shared by every event loop, and the factory of the
 * per-channel handler that applies them.
 */
public final class RateLimits implements AutoCloseable {
    private final NanoClock clock;
    private final RedisConnections redis = new RedisConnections();
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

    private RateLimits(PorticoConfig config, NanoClock clock, TimeMeter sharedClock, Executor maintenance,
            Scheduler sweeper) {
        this.clock = clock;
        this.allowUnlimited = orEmpty(config.allowUnlimited());
        try {
            for (RateLimitZoneConfig zone : orEmpty(config.rateLimits()).values()) {
                ZoneShape shape = ZoneShape.of(zone);
                int index = rateZones.size();
                RateLimitZoneConfig.Store store = zone.store();
                // a local zone's buckets, or a shared one's for on-store-failure = local
                ZoneStore local = !store.shared() || store.onFailure() == RateLimitZoneConfig.Failure.LOCAL
                        ? new CompactZoneStore(shape, zone.maxClients(), clock, maintenance, sweeper) : null;
                rateZones.put(zone.name(), !store.shared() ? new RateZone(index, zone, local)
                        : new RateZone(index, zone, new RedisZoneStore(zone, shape,
                                redis.connection("rate-limits." + zone.name(), store,
                                        longestStoreTimeout(config, store.redis())), sharedClock,
                                maintenance, local, clock)));
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
                connZones.put(zone.name(), !zone.store().shared() ? new ConnZone(zone)
                        : new ConnZone(zone, sharedConnections(config, zone)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
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
        return new RateLimits(config, NanoClock.SYSTEM, NanoClock.WALL.asTimeMeter(true), ZoneUpkeep.SHARED,
                Scheduler.systemScheduler());
    }

    /**
     * Tests: a manual clock (shared zones read it too), and upkeep on the calling thread only, so expiry and
     * eviction are deterministic.
     */
    static RateLimits create(PorticoConfig config, NanoClock clock) {
        return new RateLimits(config, clock, clock.asTimeMeter(true), Runnable::run, Scheduler.disabledScheduler());
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
     * A shared limit-conn zone's Redis counts, renewed every third of its lease on one daemon thread (a renewal is
     * a few asynchronous commands: the thread never waits for Redis).
     */
    private RedisConnStore sharedConnections(PorticoConfig config, LimitConnConfig zone) {
        RedisConnStore store = new RedisConnStore(zone, redis.connection("limit-conn." + zone.name(), zone.store(),
                longestStoreTimeout(config, zone.store().redis())), instance);
        if (renewals == null) {
            renewals = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "portico-limit-conn-leases");
                t.setDaemon(true);
                return t;
            });
        }
        long every = Math.max(1, zone.lease().toMillis() / 3);
        renewals.scheduleAtFixedRate(store::renew, every, every, TimeUnit.MILLISECONDS);
        return store;
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
        return new RateLimitHandler(this, clock);
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
     * is {@code local} (it fills during an outage); its Bucket4j handles are not counted (not measured).
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

    int rateZoneCount() {
        return rateZones.size();
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
