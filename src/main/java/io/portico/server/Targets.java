package io.portico.server;

import io.netty.channel.EventLoopGroup;
import io.portico.cache.Caches;
import io.portico.config.HostConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.config.TargetConfig;
import io.portico.exchange.Responder;
import io.portico.metrics.HealthResponder;
import io.portico.metrics.LocationMeters;
import io.portico.metrics.MetricSources;
import io.portico.metrics.MetricsResponder;
import io.portico.metrics.PorticoMetrics;
import io.portico.metrics.StatusResponder;
import io.portico.proxy.Proxies;
import io.portico.ratelimit.AccessRules;
import io.portico.ratelimit.RateLimits;
import io.portico.ratelimit.StoreLoops;
import io.portico.route.ReturnResponder;
import io.portico.staticfile.StaticFiles;
import io.portico.transport.Transport;
import io.portico.upstream.UpstreamPool;
import io.portico.upstream.UpstreamServer;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The modules behind the locations of one {@link Generation}: static files (one shared cache), the upstream pools
 * and their proxies, the rate-limit zones, and the metrics that report on them. A reload starts the next one from
 * this one, taking over what did not change ({@link #start}); this one then closes the rest ({@link #closeExcept}).
 */
final class Targets implements AutoCloseable {
    private final PorticoConfig config;
    private final StaticFiles staticFiles;
    private final Proxies proxies;
    private final RateLimits rateLimits;
    private final PorticoMetrics metrics;
    private final ServerState state;
    private final Caches caches;
    /** Each location's request meters, by identity: filled while the router is built, read by every request. */
    private final Map<LocationConfig, LocationMeters> locationMeters = new IdentityHashMap<>();
    private final LocationMeters unrouted;
    private final MetricSources sources;

    private Targets(PorticoConfig config, StaticFiles staticFiles, Proxies proxies, RateLimits rateLimits,
            PorticoMetrics metrics, ServerState state, Caches caches) {
        this.config = config;
        this.caches = caches;
        this.staticFiles = staticFiles;
        this.proxies = proxies;
        this.rateLimits = rateLimits;
        this.metrics = metrics;
        this.state = state;
        this.unrouted = metrics.location("", "");
        Map<String, List<UpstreamServer>> upstreams = new LinkedHashMap<>();
        for (UpstreamPool pool : proxies.pools().values()) {
            upstreams.put(pool.name(), pool.servers());
        }
        Set<String> dryRun = config.rateLimits().values().stream()
                .filter(RateLimitZoneConfig::dryRun).map(RateLimitZoneConfig::name).collect(Collectors.toSet());
        this.sources = new MetricSources(rateLimits.rateLimitCounters(), dryRun, rateLimits.limitConnCounters(),
                upstreams, new ConnectionStates(state), staticFiles::cacheFigures);
    }

    /**
     * The modules of {@code config}. With {@code previous} (a reload) the local zones, upstream pools and file
     * cache whose definition is unchanged are taken over from it, state and connections included.
     */
    static Targets start(PorticoConfig config, EventLoopGroup group, Transport transport, PorticoMetrics metrics,
            ServerState state, Targets previous) {
        // first: it may fail (a shared store out of reach)
        RateLimits rateLimits = RateLimits.create(config, previous == null ? null : previous.rateLimits,
                new StoreLoops(group, transport));
        Proxies proxies;
        try {
            proxies = Proxies.start(config, group, previous == null ? null : previous.proxies);
        } catch (RuntimeException e) {
            rateLimits.close();
            throw e;
        }
        StaticFiles staticFiles = previous != null && previous.config.staticFiles().equals(config.staticFiles())
                ? previous.staticFiles : StaticFiles.create(config.staticFiles());
        Caches caches = Caches.create(config.caches(), previous == null ? null : previous.caches);
        return new Targets(config, staticFiles, proxies, rateLimits, metrics, state, caches);
    }

    /** Makes the metrics report on these modules: when their generation becomes the current one. */
    void bindMetrics() {
        metrics.bind(sources, proxies.pools().values());
        metrics.bindCaches(caches::figures);
        rateLimits.bindStoreMeters(metrics::storeMeters, metrics::connStoreMeters);
    }

    RateLimits rateLimits() {
        return rateLimits;
    }

    /** The zones and upstream pools taken over from {@code previous}, by name, for the reload's log line. */
    List<String> keptZones(Targets previous) {
        return rateLimits.keptFrom(previous.rateLimits);
    }

    List<String> keptUpstreams(Targets previous) {
        return proxies.keptFrom(previous.proxies);
    }

    List<String> keptCaches(Targets previous) {
        return caches.keptFrom(previous.caches);
    }

    /**
     * The responder of {@code host}'s location (host null: a top-level location), behind its allow / deny lists
     * when it has any; its meters, labelled by the host's first name and the location's match, are bound here.
     */
    Responder responder(HostConfig host, LocationConfig location) {
        locationMeters.put(location, metrics.location(host == null ? "" : host.names().get(0),
                location.match().toString()));
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

    /**
     * Closes what {@code kept} (the next generation's modules, or on a failed reload the running ones) did not
     * take over: the pools it did not keep, the file cache unless it kept it, this instance's connections to
     * shared zone stores. A null {@code kept} closes everything but what outlives every generation.
     */
    void closeExcept(Targets kept) {
        if (kept == null) {
            close();
            return;
        }
        proxies.retire(kept.proxies);
        if (staticFiles != kept.staticFiles) {
            staticFiles.close();
        }
        rateLimits.close();
    }

    @Override
    public void close() {
        proxies.close();
        staticFiles.close();
        rateLimits.close();
    }
}
