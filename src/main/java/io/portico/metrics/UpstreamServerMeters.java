package io.portico.metrics;

import io.portico.upstream.ServerMeters;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One upstream server's meters: the try counter and the two histograms are bound at start-up; the failure and
 * retry counters by cause are bound the first time a cause occurs (a few fixed words) and kept.
 */
final class UpstreamServerMeters implements ServerMeters {
    private final String upstream;
    private final String server;
    private final CounterDataPoint tries;
    private final DistributionDataPoint connect;
    private final DistributionDataPoint response;
    private final Counter failuresFamily;
    private final Counter retriesFamily;
    private final ConcurrentHashMap<String, CounterDataPoint> failures = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, CounterDataPoint> retries = new ConcurrentHashMap<>();

    private final LongAdder failuresTotal = new LongAdder();

    private UpstreamServerMeters(String upstream, String server, PorticoMetrics.Families f, boolean perServer) {
        this.upstream = upstream;
        this.server = server;
        this.tries = perServer ? f.upstreamRequests.labelValues(upstream, server) : null;
        this.connect = perServer ? f.upstreamConnect.labelValues(upstream, server) : null;
        this.response = perServer ? f.upstreamResponse.labelValues(upstream, server) : null;
        this.failuresFamily = f.upstreamFailures;
        this.retriesFamily = f.upstreamRetries;
    }

    static UpstreamServerMeters server(String upstream, String server, PorticoMetrics.Families f) {
        return new UpstreamServerMeters(upstream, server, f, true);
    }

    /** The meters of a pool's failures that no server had (no live upstreams): failures only, server "". */
    static UpstreamServerMeters pool(String upstream, PorticoMetrics.Families f) {
        return new UpstreamServerMeters(upstream, "", f, false);
    }

    @Override
    public void tried() {
        tries.inc();
    }

    @Override
    public void connected(long nanos) {
        connect.observe(nanos / 1e9);
    }

    @Override
    public void responded(long nanos) {
        response.observe(nanos / 1e9);
    }

    @Override
    public void failed(String cause) {
        failures.computeIfAbsent(cause, c -> failuresFamily.labelValues(upstream, server, c)).inc();
        failuresTotal.increment();
    }

    @Override
    public void retried(String cause) {
        retries.computeIfAbsent(cause, c -> retriesFamily.labelValues(upstream, server, c)).inc();
    }

    /** Failures of this server since start (the status page). */
    long failures() {
        return failuresTotal.sum();
    }
}
