package io.portico.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Client connections by the protocol they speak ({@code http/1.1} or {@code h2}: a TLS connection counts once ALPN
 * chose, a plain h2c one once its preface came) and HTTP/2 streams, each a counter of those begun and a gauge of
 * those open. Label children are resolved here once, so a connection or stream pays an increment; the gauges are
 * updated from every event loop (client_java's data points are thread-safe).
 */
public final class ProtocolMeters {
    private final CounterDataPoint http1Connections;
    private final CounterDataPoint http2Connections;
    private final GaugeDataPoint http1Open;
    private final GaugeDataPoint http2Open;
    private final CounterDataPoint streams;
    private final GaugeDataPoint streamsOpen;

    ProtocolMeters(PrometheusRegistry r) {
        Counter connections = Counter.builder().name("portico_connections_protocol")
                .help("Client connections by the protocol they came to speak: http/1.1 or h2 (ALPN, or h2c's preface).")
                .labelNames("protocol").withoutExemplars().register(r);
        Gauge open = Gauge.builder().name("portico_connections_protocol_open")
                .help("Client connections open now, by protocol (those still in a TLS handshake are in neither).")
                .labelNames("protocol").register(r);
        http1Connections = connections.labelValues("http/1.1");
        http2Connections = connections.labelValues("h2");
        http1Open = open.labelValues("http/1.1");
        http2Open = open.labelValues("h2");
        streams = Counter.builder().name("portico_http2_streams")
                .help("HTTP/2 streams clients opened (refused ones, past max-concurrent-streams, are not counted).")
                .withoutExemplars().register(r).labelValues();
        streamsOpen = Gauge.builder().name("portico_http2_streams_open")
                .help("HTTP/2 streams open now, over every connection.").register(r).labelValues();
    }

    /** A connection starts speaking HTTP/2 ({@code true}) or HTTP/1.1. */
    public void connectionOpened(boolean http2) {
        (http2 ? http2Connections : http1Connections).inc();
        (http2 ? http2Open : http1Open).inc();
    }

    /** A connection counted by {@link #connectionOpened} closed. */
    public void connectionClosed(boolean http2) {
        (http2 ? http2Open : http1Open).dec();
    }

    public void streamOpened() {
        streams.inc();
        streamsOpen.inc();
    }

    public void streamClosed() {
        streamsOpen.dec();
    }
}
