package io.portico.metrics;

import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.Map;
import java.util.function.Supplier;

/** The response cache's families, read at scrape time from the zones of the configuration in service. */
final class CacheFamilies {
    private CacheFamilies() {}

    static void register(PrometheusRegistry r, Supplier<Map<String, CacheZoneFigures>> zones) {
        CounterWithCallback.builder().name("portico_cache_requests")
                .help("Requests a response cache zone looked at, by result: hit, miss, stale (a stale copy served"
                        + " on an upstream failure or while starting a refresh), updating (a stale copy while the"
                        + " refresh runs), bypass, coalesced (misses that waited for another's response).")
                .labelNames("zone", "result")
                .callback(cb -> zones.get().forEach((zone, f) -> {
                    cb.call(f.hits(), zone, "hit");
                    cb.call(f.misses(), zone, "miss");
                    cb.call(f.stale(), zone, "stale");
                    cb.call(f.updating(), zone, "updating");
                    cb.call(f.bypass(), zone, "bypass");
                    cb.call(f.coalesced(), zone, "coalesced");
                })).register(r);
        CounterWithCallback.builder().name("portico_cache_stored")
                .help("Responses a response cache zone stored.")
                .labelNames("zone")
                .callback(cb -> zones.get().forEach((zone, f) -> cb.call(f.stored(), zone))).register(r);
        CounterWithCallback.builder().name("portico_cache_evictions")
                .help("Entries a response cache zone evicted to stay within max-size.")
                .labelNames("zone")
                .callback(cb -> zones.get().forEach((zone, f) -> cb.call(f.evictions(), zone))).register(r);
        GaugeWithCallback.builder().name("portico_cache_bytes")
                .help("Bytes a response cache zone holds now, as its weigher counts them (at most max-size).")
                .labelNames("zone")
                .callback(cb -> zones.get().forEach((zone, f) -> cb.call(f.bytes(), zone))).register(r);
        GaugeWithCallback.builder().name("portico_cache_entries")
                .help("Entries a response cache zone holds now (an estimate).")
                .labelNames("zone")
                .callback(cb -> zones.get().forEach((zone, f) -> cb.call(f.entries(), zone))).register(r);
    }
}
