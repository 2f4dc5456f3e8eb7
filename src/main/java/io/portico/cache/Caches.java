package io.portico.cache;

import com.github.benmanes.caffeine.cache.Ticker;
import io.portico.config.CacheConfig;
import io.portico.config.CacheZoneConfig;
import io.portico.config.LocationConfig;
import io.portico.exchange.Responder;
import io.portico.metrics.CacheZoneFigures;
import io.portico.proxy.ProxyResponder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The response cache of a configuration: its zones, built once, and the one factory the server calls for the
 * responders that use them: a proxy location behind its cache, and the status location with the purge.
 */
public final class Caches {
    private final Map<String, CacheZone> zones;

    private Caches(Map<String, CacheZone> zones) {
        this.zones = zones;
    }

    public static Caches create(Map<String, CacheZoneConfig> configs) {
        return create(configs, null);
    }

    /**
     * As {@link #create(Map)}, for a reload: a zone whose definition is the same in {@code previous} is taken over
     * with its entries and fills in progress (nginx keeps its cache across a reload too); a changed or new zone
     * starts empty.
     */
    public static Caches create(Map<String, CacheZoneConfig> configs, Caches previous) {
        Map<String, CacheZone> zones = new LinkedHashMap<>();
        configs.values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(c -> {
            CacheZone before = previous == null ? null : previous.zones.get(c.name());
            zones.put(c.name(), before != null && before.config.equals(c) ? before
                    : new CacheZone(c, Ticker.systemTicker()));
        });
        return new Caches(Map.copyOf(zones));
    }

    /** Names of the zones taken over from {@code previous}. */
    public java.util.List<String> keptFrom(Caches previous) {
        return zones.entrySet().stream()
                .filter(e -> previous != null && previous.zones.get(e.getKey()) == e.getValue())
                .map(Map.Entry::getKey).toList();
    }

    /** {@code proxy} behind the location's cache, or {@code proxy} itself when the location has none. */
    public Responder responder(LocationConfig location, ProxyResponder proxy) {
        if (location.cache().isEmpty()) {
            return proxy;
        }
        CacheConfig c = location.cache().get();
        return new CachingResponder(c, zones.get(c.zone()), proxy, System::nanoTime);
    }

    /** The status location's responder with the purge in front, or {@code status} when there is no zone. */
    public Responder admin(Responder status) {
        return zones.isEmpty() ? status : new PurgeResponder(zones, status);
    }

    /** Each zone's figures now, by name (metrics, at scrape time). */
    public Map<String, CacheZoneFigures> figures() {
        Map<String, CacheZoneFigures> out = new LinkedHashMap<>();
        zones.forEach((name, z) -> out.put(name, new CacheZoneFigures(z.hits.sum(), z.misses.sum(), z.stale.sum(),
                z.updating.sum(), z.bypass.sum(), z.coalesced.sum(), z.stored.sum(), z.evictions.sum(),
                z.weightedSize(), z.entryCount())));
        return out;
    }
}
