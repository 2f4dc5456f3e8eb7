package io.portico.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoopGroup;
import io.portico.cache.Caches;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.config.TargetConfig;
import io.portico.metrics.HealthResponder;
import io.portico.metrics.LocationMeters;
import io.portico.metrics.MetricSources;
import io.portico.metrics.MetricsResponder;
import io.portico.metrics.PorticoMetrics;
import io.portico.metrics.StatusResponder;
import io.portico.proxy.Proxies;
import io.portico.ratelimit.AccessRules;
import io.portico.ratelimit.RateLimits;
import io.portico.route.Responder;
import io.portico.route.ReturnResponder;
import io.portico.staticfile.StaticFiles;
import io.portico.upstream.UpstreamPool;
import io.portico.upstream.UpstreamServer;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The modules behind the locations, started with the server and closed with it: static files (one shared
 * cache), the upstream pools and their proxies, the rate-limit zones, and the metrics that report on them.
 */
final class Targets implements AutoCloseable {
    private final StaticFiles staticFiles;
    private final Proxies proxies;
    private final RateLimits rateLimits;
    private final boolean anyLimits;
    private final PorticoMetrics metrics;
    private final ServerState state;
    private final Caches caches;
    /** Each location's request meters, by identity: filled while the router is built, read by every request. */
    private final Map<LocationConfig, LocationMeters> locationMeters = new IdentityHashMap<>();
    private final LocationMeters unrouted;

    private Targets(StaticFiles staticFiles, Proxies proxies, RateLimits rateLimits, boolean anyLimits,
            PorticoMetrics metrics, ServerState state, Caches caches) {
        this.caches = caches;
        this.staticFiles = staticFiles;
        this.proxies = proxies;
        this.rateLimits = rateLimits;
        this.anyLimits = anyLimits;
        this.metrics = metrics;
        this.state = state;
        this.unrouted = metrics.location("");
    }

    static Targets start(PorticoConfig config, EventLoopGroup group, PorticoMetrics metrics, ServerState state) {
        boolean anyLimits = config.allLocations().stream()
                .anyMatch(l -> !l.rateLimits().isEmpty() || !l.limitConn().isEmpty());
        RateLimits rateLimits = RateLimits.create(config); // first: it may fail (a shared store out of reach)
        Proxies proxies;
        try {
            proxies = Proxies.start(config, group);
        } catch (RuntimeException e) {
            rateLimits.close();
            throw e;
        }
        Map<String, List<UpstreamServer>> upstreams = new LinkedHashMap<>();
        for (UpstreamPool pool : proxies.pools().values()) {
            upstreams.put(pool.name(), pool.servers());
        }
        Set<String> dryRun = config.rateLimits().values().stream()
                .filter(RateLimitZoneConfig::dryRun).map(RateLimitZoneConfig::name).collect(Collectors.toSet());
        StaticFiles staticFiles = StaticFiles.create(config.staticFiles());
        metrics.bind(new MetricSources(rateLimits.rateLimitCounters(), dryRun, rateLimits.limitConnCounters(),
                upstreams, new ConnectionStates(state), staticFiles::cacheFigures), proxies.pools().values());
        Caches caches = Caches.create(config.caches());
        metrics.bindCaches(caches::figures);
        return new Targets(staticFiles, proxies, rateLimits, anyLimits, metrics, state, caches);
    }

    /** The location's responder, behind its allow / deny lists when it has any; its meters are bound here. */
    Responder responder(LocationConfig location) {
        locationMeters.put(location, metrics.location(location.match().toString()));
        return AccessRules.guard(location, target(location));
    }

    /** The meters of a request's location; those labelled "" for a request no location took (404, 400). */
    LocationMeters meters(LocationConfig location) {
        LocationMeters m = location == null ? null : locationMeters.get(location);
        return m == null ? unrouted : m;
    }

    private Responder target(LocationConfig location) {
        TargetConfig t = location.target();
        if (t instanceof TargetConfig.Static s) {
            return staticFiles.responder(location, s, proxies::named);
        }
        if (t instanceof TargetConfig.Proxy p) {
            return caches.responder(location, proxies.responder(location, p));
        }
        if (t instanceof TargetConfig.Metrics) {
            return new MetricsResponder(metrics);
        }
        if (t instanceof TargetConfig.Status) {
            return caches.admin(new StatusResponder(metrics, state::draining));
        }
        if (t instanceof TargetConfig.Health) {
            return new HealthResponder(state::draining);
        }
        return new ReturnResponder((TargetConfig.Return) t);
    }

    /** The rate-limit handler of a new connection, or null when no location limits anything. */
    ChannelHandler newRateLimitHandler() {
        return anyLimits ? rateLimits.newHandler() : null;
    }

    @Override
    public void close() {
        proxies.close();
        staticFiles.close();
        rateLimits.close();
    }
}
