package io.portico.metrics;

import io.portico.tls.TlsFailureHandler;
import io.portico.upstream.UpstreamServer;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The families read at scrape time from what the modules count anyway: connections, rate-limit and limit-conn
 * zones, upstream servers' health and load, the static file cache, TLS handshakes. The rate-limit and upstream
 * names are those of the hand-written exposition they replace (docs/configuration.md lists them all).
 */
final class SourceFamilies {
    private SourceFamilies() {}

    static void register(PrometheusRegistry r, Supplier<MetricSources> current, TlsFailureHandler tls) {
        connections(r, current);
        rateLimits(r, current);
        limitConn(r, current);
        upstreams(r, current);
        staticCache(r, current);
        CounterWithCallback.builder().name("portico_tls_handshakes")
                .help("TLS handshakes completed.")
                .callback(cb -> cb.call(tls.handshakes())).register(r);
        CounterWithCallback.builder().name("portico_tls_handshake_failures")
                .help("TLS handshakes that failed, or whose connection closed before they completed.")
                .callback(cb -> cb.call(tls.failures())).register(r);
    }

    private static void connections(PrometheusRegistry r, Supplier<MetricSources> current) {
        GaugeWithCallback.builder().name("portico_connections_open")
                .help("Client connections open now (nginx's Active).")
                .callback(cb -> cb.call(current.get().connections().get().open())).register(r);
        GaugeWithCallback.builder().name("portico_connections")
                .help("Client connections open now by state: reading a request head, writing (a request in "
                        + "progress), waiting (idle keep-alive, or no byte yet).")
                .labelNames("state")
                .callback(cb -> {
                    ConnectionCounts c = current.get().connections().get();
                    cb.call(c.reading(), "reading");
                    cb.call(c.writing(), "writing");
                    cb.call(c.waiting(), "waiting");
                }).register(r);
    }

    private static void rateLimits(PrometheusRegistry r, Supplier<MetricSources> current) {
        CounterWithCallback.builder().name("portico_rate_limit_requests")
                .help("Requests a rate-limit zone decided on, by result; dry_run_delayed and dry_run_rejected are "
                        + "what a dry-run zone would have done (it let them pass).")
                .labelNames("zone", "result")
                .callback(cb -> {
                    MetricSources s = current.get();
                    s.rateLimits().forEach((zone, c) -> {
                        boolean dry = s.dryRunZones().contains(zone);
                        cb.call(c.passed(), zone, "passed");
                        cb.call(dry ? 0 : c.delayed(), zone, "delayed");
                        cb.call(dry ? 0 : c.rejected(), zone, "rejected");
                        cb.call(dry ? c.delayed() : 0, zone, "dry_run_delayed");
                        cb.call(dry ? c.rejected() : 0, zone, "dry_run_rejected");
                    });
                }).register(r);
        CounterWithCallback.builder().name("portico_rate_limit_evictions")
                .help("Clients a rate-limit zone forgot early because it was full (max-clients).")
                .labelNames("zone")
                .callback(cb -> current.get().rateLimits().forEach((zone, c) -> cb.call(c.evictions(), zone)))
                .register(r);
        GaugeWithCallback.builder().name("portico_rate_limit_clients")
                .help("Clients a rate-limit zone holds state for now (an estimate).")
                .labelNames("zone")
                .callback(cb -> current.get().rateLimits().forEach((zone, c) -> cb.call(c.clients(), zone)))
                .register(r);
        CounterWithCallback.builder().name("portico_rate_limit_store_failures")
                .help("Decisions a zone's Redis store could not make within store-timeout, made by its "
                        + "on-store-failure instead (always 0 for a local zone).")
                .labelNames("zone")
                .callback(cb -> current.get().rateLimits().forEach((zone, c) -> cb.call(c.storeFailures(), zone)))
                .register(r);
    }

    private static void limitConn(PrometheusRegistry r, Supplier<MetricSources> current) {
        CounterWithCallback.builder().name("portico_limit_conn_requests")
                .help("Requests a limit-conn zone decided on, by result.")
                .labelNames("zone", "result")
                .callback(cb -> current.get().limitConn().forEach((zone, c) -> {
                    cb.call(c.passed(), zone, "passed");
                    cb.call(c.rejected(), zone, "rejected");
                })).register(r);
        GaugeWithCallback.builder().name("portico_limit_conn_keys")
                .help("Keys of a limit-conn zone with a request in progress now.")
                .labelNames("zone")
                .callback(cb -> current.get().limitConn().forEach((zone, c) -> cb.call(c.clients(), zone)))
                .register(r);
        CounterWithCallback.builder().name("portico_limit_conn_store_failures")
                .help("Slots a limit-conn zone's Redis store could not count within store-timeout, decided by its "
                        + "on-store-failure instead (always 0 for a local zone).")
                .labelNames("zone")
                .callback(cb -> current.get().limitConn().forEach((zone, c) -> cb.call(c.storeFailures(), zone)))
                .register(r);
    }

    private static void upstreams(PrometheusRegistry r, Supplier<MetricSources> current) {
        GaugeWithCallback.builder().name("portico_upstream_server_up")
                .help("1 when the balancer may choose the server (health checks and max-fails), else 0.")
                .labelNames("upstream", "server")
                .callback(cb -> eachServer(current, (pool, s) -> cb.call(s.available() ? 1 : 0, pool, s.name())))
                .register(r);
        GaugeWithCallback.builder().name("portico_upstream_server_active_requests")
                .help("Requests in flight to the server now.")
                .labelNames("upstream", "server")
                .callback(cb -> eachServer(current, (pool, s) -> cb.call(s.active(), pool, s.name())))
                .register(r);
    }

    private static void eachServer(Supplier<MetricSources> current,
            java.util.function.BiConsumer<String, UpstreamServer> each) {
        for (Map.Entry<String, List<UpstreamServer>> e : current.get().upstreams().entrySet()) {
            for (UpstreamServer s : e.getValue()) {
                each.accept(e.getKey(), s);
            }
        }
    }

    private static void staticCache(PrometheusRegistry r, Supplier<MetricSources> current) {
        CounterWithCallback.builder().name("portico_static_cache_hits")
                .help("Static responses whose bytes came from the in-memory file cache.")
                .callback(cb -> cb.call(current.get().staticCache().get().hits())).register(r);
        CounterWithCallback.builder().name("portico_static_cache_misses")
                .help("Small files read from disk into the in-memory cache because they were not there.")
                .callback(cb -> cb.call(current.get().staticCache().get().misses())).register(r);
        CounterWithCallback.builder().name("portico_static_cache_hit_bytes")
                .help("Bytes served from the in-memory file cache.")
                .callback(cb -> cb.call(current.get().staticCache().get().hitBytes())).register(r);
        GaugeWithCallback.builder().name("portico_static_cache_bytes")
                .help("Bytes the in-memory file cache holds now (at most cache-max-size).")
                .callback(cb -> cb.call(current.get().staticCache().get().cachedBytes())).register(r);
    }

}
