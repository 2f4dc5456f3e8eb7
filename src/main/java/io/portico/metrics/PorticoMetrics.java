package io.portico.metrics;

import io.portico.ratelimit.StoreMeters;
import io.portico.tls.TlsFailureHandler;
import io.portico.upstream.UpstreamPool;
import io.portico.upstream.UpstreamServer;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmCompilationMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server's metrics (Prometheus client_java): one registry per {@code PorticoServer}, never a static one, so two
 * servers in one JVM (tests) and a reload keep their own counts. The families the request path feeds are created
 * here once; {@link #location} and {@link #bind} hand out meters whose label children are resolved then, so a
 * request pays increments. Gauges and the counters other modules keep anyway are read by callbacks from the
 * {@link MetricSources} bound last, at scrape time.
 *
 * <p>Scrapes and status pages are rendered on one thread of their own ({@link #executor}): the JVM and process
 * collectors read MXBeans and /proc, which is no work for an event loop.
 */
public final class PorticoMetrics implements AutoCloseable {
    /** Request duration buckets, seconds: Prometheus' defaults with the sub-5 ms ones a front tier needs. */
    private static final double[] REQUEST_BUCKETS =
            {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
    /**
     * A shared zone's round trip, seconds: fine from 0.1 to 2 ms (a loopback round trip is 0.1-0.5 ms, issue 29 asks
     * for a p99 under 1 ms), then wide enough to tell a loop's wait for a core from a store-timeout.
     */
    private static final double[] STORE_BUCKETS = {0.0001, 0.0002, 0.0003, 0.0004, 0.0005, 0.00075, 0.001, 0.0015,
        0.002, 0.003, 0.005, 0.0075, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
    private static final double[] CONNECT_BUCKETS =
            {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

    /** The families fed from the request path (package-private: meters bind their children from them). */
    static final class Families {
        final Counter requests;
        final Histogram requestDuration;
        final Counter received;
        final Counter sent;
        final Counter upstreamRequests;
        final Counter upstreamFailures;
        final Counter upstreamRetries;
        final Histogram upstreamConnect;
        final Histogram upstreamResponse;
        final Counter accepted;
        final Histogram storeRoundTrip;
        final Histogram storeDecision;
        final Histogram connStoreRoundTrip;
        final Histogram connStoreDecision;

        Families(PrometheusRegistry r) {
            requests = Counter.builder().name("portico_http_requests")
                    .help("Requests answered, by virtual host, location, method (GET, HEAD, POST, PUT, DELETE, "
                            + "PATCH, OPTIONS or OTHER) and status code; 499 when the client left first.")
                    .labelNames("host", "location", "method", "code").withoutExemplars().register(r);
            requestDuration = Histogram.builder().name("portico_http_request_duration_seconds")
                    .help("From the request head to the end of its response, by virtual host and location.")
                    .labelNames("host", "location").classicOnly().classicUpperBounds(REQUEST_BUCKETS).withoutExemplars()
                    .register(r);
            received = Counter.builder().name("portico_http_received_bytes")
                    .help("Request body bytes read from clients, by virtual host and location.")
                    .labelNames("host", "location").withoutExemplars().register(r);
            sent = Counter.builder().name("portico_http_sent_bytes")
                    .help("Response body bytes written to clients, by virtual host and location.")
                    .labelNames("host", "location").withoutExemplars().register(r);
            upstreamRequests = Counter.builder().name("portico_upstream_requests")
                    .help("Tries of a request on an upstream server (each retry is another try).")
                    .labelNames("upstream", "server").withoutExemplars().register(r);
            upstreamFailures = Counter.builder().name("portico_upstream_failures")
                    .help("Tries that failed before a complete response, by cause: connect_error, connect_timeout, "
                            + "closed, read_timeout, send_timeout, malformed, queue_full; no_live_upstream (server "
                            + "\"\") when no server could be chosen.")
                    .labelNames("upstream", "server", "cause").withoutExemplars().register(r);
            upstreamRetries = Counter.builder().name("portico_upstream_retries")
                    .help("Failures of a server after which the request was tried again, by cause.")
                    .labelNames("upstream", "server", "cause").withoutExemplars().register(r);
            upstreamConnect = Histogram.builder().name("portico_upstream_connect_duration_seconds")
                    .help("Time to establish a new upstream connection (pooled ones are not counted).")
                    .labelNames("upstream", "server").classicOnly().classicUpperBounds(CONNECT_BUCKETS)
                    .withoutExemplars().register(r);
            upstreamResponse = Histogram.builder().name("portico_upstream_response_duration_seconds")
                    .help("From the start of a try to the end of its response or its failure (nginx's "
                            + "upstream_response_time).")
                    .labelNames("upstream", "server").classicOnly().classicUpperBounds(REQUEST_BUCKETS)
                    .withoutExemplars().register(r);
            accepted = Counter.builder().name("portico_connections_accepted")
                    .help("Client connections accepted.").withoutExemplars().register(r);
            storeRoundTrip = storeHistogram(r, "portico_rate_limit_store_round_trip_seconds",
                    "A shared zone's decision command, from its send to its answer handled on the event loop (late "
                            + "answers included), by zone.");
            storeDecision = storeHistogram(r, "portico_rate_limit_store_decision_seconds",
                    "A shared zone's decision that asked Redis, from the ask to the verdict (Redis's, or "
                            + "on-store-failure's at store-timeout), by zone.");
            connStoreRoundTrip = storeHistogram(r, "portico_limit_conn_store_round_trip_seconds",
                    "A shared limit-conn zone's take of a slot, from its send to its answer handled on the event "
                            + "loop (late answers included), by zone.");
            connStoreDecision = storeHistogram(r, "portico_limit_conn_store_decision_seconds",
                    "A shared limit-conn zone's decision that asked Redis, from the ask to the verdict (Redis's, or "
                            + "on-store-failure's at store-timeout), by zone.");
        }

        /** A shared store's times by zone, in the store's buckets (0.1 ms to seconds). */
        private static Histogram storeHistogram(PrometheusRegistry r, String name, String help) {
            return Histogram.builder().name(name).help(help).labelNames("zone").classicOnly()
                    .classicUpperBounds(STORE_BUCKETS).withoutExemplars().register(r);
        }
    }

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Families families = new Families(registry);
    private final CounterDataPoint accepted = families.accepted.labelValues();
    private final LongAdder requestsTotal = new LongAdder();
    /** By virtual host and location label: the locations of two hosts never share a series. */
    private final ConcurrentHashMap<LocationKey, LocationMeters> locations = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, UpstreamServerMeters> servers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "portico-metrics");
        t.setDaemon(true);
        return t;
    });
    private final RequestRate rate = new RequestRate(requestsTotal::sum, System::nanoTime);
    private final long startMillis = System.currentTimeMillis();
    private final TlsFailureHandler tls = new TlsFailureHandler();
    private final ProtocolMeters protocols = new ProtocolMeters(registry);
    private volatile MetricSources sources = MetricSources.empty();
    private volatile java.util.function.Supplier<java.util.Map<String, CacheZoneFigures>> caches = java.util.Map::of;

    public PorticoMetrics() {
        SourceFamilies.register(registry, () -> sources, tls);
        CacheFamilies.register(registry, () -> caches.get());
        // nginx's handled: accepted connections not dropped for a lack of resources. Portico stops accepting at
        // max-connections instead of dropping, so it is always the accepted figure (dashboards built on
        // stub_status expect both).
        io.prometheus.metrics.core.metrics.CounterWithCallback.builder().name("portico_connections_handled")
                .help("Client connections handled: every accepted one (at max-connections Portico stops accepting).")
                .callback(cb -> cb.call(accepted.get())).register(registry);
        // JvmMetrics.builder() would do these and two more, but it keeps every registry it served in a static set
        // (a server's registry would outlive it, with what its callbacks reach), and its allocation metrics add
        // GC listeners that are never removed: one per server started.
        JvmMemoryMetrics.builder().register(registry);
        JvmBufferPoolMetrics.builder().register(registry);
        JvmGarbageCollectorMetrics.builder().register(registry);
        JvmThreadsMetrics.builder().register(registry);
        JvmClassLoadingMetrics.builder().register(registry);
        JvmCompilationMetrics.builder().register(registry);
        JvmRuntimeInfoMetric.builder().register(registry);
        ProcessMetrics.builder().register(registry);
        Info.Builder build = Info.builder().name("portico_build_info")
                .help("Portico's version and the JVM it runs on; the value is always 1.")
                .labelNames("version", "netty", "java");
        Properties p = versions();
        build.register(registry).setLabelValues(p.getProperty("version", "unknown"),
                p.getProperty("netty", "unknown"), System.getProperty("java.version"));
        executor.scheduleAtFixedRate(rate::sample, 1, 1, TimeUnit.SECONDS);
    }

    private static Properties versions() {
        Properties p = new Properties();
        try (InputStream in = PorticoMetrics.class.getResourceAsStream("/io/portico/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // portico_build_info says "unknown"
        }
        return p;
    }

    /**
     * Binds a configuration: its modules' counters become what the callbacks read, and its upstream servers get
     * their meters (the same children as before for a server a reload kept, so counts carry on).
     */
    public void bind(MetricSources sources, Iterable<UpstreamPool> pools) {
        for (UpstreamPool pool : pools) {
            pool.poolMeters(servers.computeIfAbsent(pool.name() + "\n",
                    k -> UpstreamServerMeters.pool(pool.name(), families)));
            for (UpstreamServer s : pool.servers()) {
                s.meters(servers.computeIfAbsent(pool.name() + "\n" + s.name(),
                        k -> UpstreamServerMeters.server(pool.name(), s.name(), families)));
            }
        }
        this.sources = sources;
    }

    /** The response cache zones' figures now (the status page). */
    Map<String, CacheZoneFigures> cacheFigures() {
        return caches.get();
    }

    /** Binds the response cache zones of a configuration: their figures become what the cache families read. */
    public void bindCaches(java.util.function.Supplier<java.util.Map<String, CacheZoneFigures>> zones) {
        this.caches = zones;
    }

    /**
     * The meters of the location labelled {@code label} (its match: {@code = /x}, {@code ~ re}, {@code /prefix}) of
     * the virtual host labelled {@code host} (its first name; "" for the top-level locations and for requests no
     * host took), so that two hosts' {@code /} are two series.
     */
    public LocationMeters location(String host, String label) {
        return locations.computeIfAbsent(new LocationKey(host, label), k -> new LocationMeters(k.host(), k.label(),
                families.requests, families.requestDuration.labelValues(k.host(), k.label()),
                families.received.labelValues(k.host(), k.label()), families.sent.labelValues(k.host(), k.label()),
                requestsTotal));
    }

    private record LocationKey(String host, String label) {}

    /**
     * The round-trip meters of the shared rate-limit zone {@code zone}: the same series for a zone a reload
     * rebuilt, so its counts carry on.
     */
    public StoreMeters storeMeters(String zone) {
        return new ZoneStoreMeters(families.storeRoundTrip.labelValues(zone),
                families.storeDecision.labelValues(zone));
    }

    /**
     * The round-trip meters of the shared limit-conn zone {@code zone}: a family of their own, as the zones'
     * request counters and failures have (limit-conn and rate-limit zones are named apart and may share a name).
     */
    public StoreMeters connStoreMeters(String zone) {
        return new ZoneStoreMeters(families.connStoreRoundTrip.labelValues(zone),
                families.connStoreDecision.labelValues(zone));
    }

    /** A client connection was accepted. */
    public void connectionAccepted() {
        accepted.inc();
    }

    /** Client connections and HTTP/2 streams by protocol, counted as each begins and ends. */
    public ProtocolMeters protocols() {
        return protocols;
    }

    /** The handler of every TLS listener of this server: it closes failed handshakes and counts them. */
    public TlsFailureHandler tlsHandler() {
        return tls;
    }

    /** Everything, in the Prometheus text format 0.0.4. Call it on {@link #executor}. */
    byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream(16384);
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
        }
        return out.toByteArray();
    }

    static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }

    /** Where scrapes and status pages are rendered: off the event loops. */
    ScheduledExecutorService executor() {
        return executor;
    }

    MetricSources sources() {
        return sources;
    }

    RequestRate rate() {
        return rate;
    }

    long requestsTotal() {
        return requestsTotal.sum();
    }

    long startMillis() {
        return startMillis;
    }

    long failures(String upstream, UpstreamServer server) {
        UpstreamServerMeters m = servers.get(upstream + "\n" + server.name());
        return m == null ? 0 : m.failures();
    }

    long acceptedTotal() {
        return (long) families.accepted.labelValues().get();
    }

    long tlsHandshakes() {
        return tls.handshakes();
    }

    long tlsFailures() {
        return tls.failures();
    }

    /** Stops the metrics thread and lets go of the last configuration's modules (their caches, zones, pools). */
    @Override
    public void close() {
        executor.shutdownNow();
        sources = MetricSources.empty();
    }
}
