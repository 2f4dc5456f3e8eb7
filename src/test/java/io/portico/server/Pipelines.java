package io.portico.server;

import io.netty.channel.ChannelHandler;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.metrics.AccessLog;
import io.portico.metrics.LocationMeters;
import io.portico.metrics.PorticoMetrics;
import io.portico.ratelimit.RateLimits;
import io.portico.route.HostRouter;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/** A client pipeline as a server's listener builds it, around a router made by hand (one generation, no reload). */
final class Pipelines {
    private Pipelines() {}

    /** @param rateLimits null: no rate-limit stage */
    static ChannelHandler initializer(PorticoConfig config, HostRouter router, RateLimits rateLimits,
            Function<LocationConfig, LocationMeters> meters, PorticoMetrics metrics) {
        AtomicReference<Generation> current = new AtomicReference<>();
        ServerParts parts = new ServerParts(new ServerState(), new ConnectionLimiter(config.limits().maxConnections()),
                AccessLog.create(config.accessLog()), metrics, current::get);
        current.set(Generation.of(config, router, rateLimits, meters, parts, null));
        return new ListenerDispatch(null, a -> current.get().listener(a));
    }
}
