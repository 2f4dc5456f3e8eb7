package io.portico.server;

import io.portico.metrics.AccessLog;
import io.portico.metrics.PorticoMetrics;
import java.util.function.Supplier;

/**
 * What every {@link Generation} of one server shares, made once at start: the open connections and the draining
 * flag, the connection limit, the access log, the metrics, and where the current generation is read.
 */
record ServerParts(
        ServerState state,
        ConnectionLimiter connectionLimiter,
        AccessLog accessLog,
        PorticoMetrics metrics,
        Supplier<Generation> current) {}
