package io.portico.metrics;

import io.portico.ratelimit.ZoneCounters;
import io.portico.upstream.UpstreamServer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntSupplier;

/**
 * What a metrics location reports, all read on demand from counters the server keeps anyway (nothing is added to
 * the request path to feed them).
 *
 * @param rateLimits each rate-limit zone's counters, by zone name
 * @param dryRunZones the rate-limit zones in dry-run mode, whose delays and rejections only would have happened
 * @param limitConn each limit-conn zone's counters, by zone name
 * @param upstreams each upstream pool's servers, by pool name
 * @param openConnections client connections open now
 */
public record MetricSources(
        Map<String, ZoneCounters> rateLimits,
        Set<String> dryRunZones,
        Map<String, ZoneCounters> limitConn,
        Map<String, List<UpstreamServer>> upstreams,
        IntSupplier openConnections) {}
