package io.portico.metrics;

import io.portico.ratelimit.ZoneCounters;
import io.portico.staticfile.CacheFigures;
import io.portico.upstream.UpstreamServer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What one configuration gives the metrics to read on demand: counters its modules keep anyway (nothing is added
 * to the request path to feed these). A reload binds new sources to the same {@link PorticoMetrics}.
 *
 * @param rateLimits each rate-limit zone's counters, by zone name
 * @param dryRunZones the rate-limit zones in dry-run mode, whose delays and rejections only would have happened
 * @param limitConn each limit-conn zone's counters, by zone name
 * @param upstreams each upstream pool's servers, by pool name
 * @param connections the client connections by state, sampled
 * @param staticCache the in-memory file cache's counters
 */
public record MetricSources(
        Map<String, ZoneCounters> rateLimits,
        Set<String> dryRunZones,
        Map<String, ZoneCounters> limitConn,
        Map<String, List<UpstreamServer>> upstreams,
        Supplier<ConnectionCounts> connections,
        Supplier<CacheFigures> staticCache) {

    /** Sources with nothing to report: a server not started yet. */
    static MetricSources empty() {
        return new MetricSources(Map.of(), Set.of(), Map.of(), Map.of(), () -> new ConnectionCounts(0, 0, 0, 0),
                () -> new CacheFigures(0, 0, 0, 0));
    }
}
