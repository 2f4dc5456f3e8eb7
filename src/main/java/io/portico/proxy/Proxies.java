package io.portico.proxy;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.portico.config.ForwardedHeader;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.config.UpstreamConfig;
import io.portico.route.Responder;
import io.portico.upstream.UpstreamPool;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Map.Entry;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The reverse proxy of a configuration: one upstream pool per configured upstream, and responders over them. */
public final class Proxies implements AutoCloseable {
    /** Defaults for try-files' {@code @name} fallback: reference.conf's defaults.location. */
    static final long DEFAULT_CLIENT_BODY_BUFFER = 64 * 1024;
    static final long DEFAULT_PROXY_BUFFERS = 512 * 1024;

    private final PorticoConfig config;
    private final Map<String, UpstreamPool> pools;
    /** Temp-file work of buffered request bodies and spilled responses: off the event loops. */
    private final ExecutorService files =
            Executors.newFixedThreadPool(2, new DefaultThreadFactory("portico-proxy-files", true));

    private Proxies(PorticoConfig config, Map<String, UpstreamPool> pools) {
        this.config = config;
        this.pools = pools;
    }

    /** Builds upstream pools from config; starts active health checks on {@code group}. */
    public static Proxies start(PorticoConfig config, EventLoopGroup group) {
        Map<String, UpstreamPool> pools = new LinkedHashMap<>();
        for (Entry<String, UpstreamConfig> e : config.upstreams().entrySet()) {
            UpstreamPool pool = new UpstreamPool(e.getValue(), System::nanoTime);
            pool.requireTransport(group);
            pools.put(e.getKey(), pool);
        }
        pools.values().forEach(p -> p.startHealthChecks(group));
        return new Proxies(config, pools);
    }

    /** The responder of a {@code proxy} location; shared by every event loop. */
    public ProxyResponder responder(LocationConfig location, TargetConfig.Proxy target) {
        return new ProxyResponder(new ProxySettings(location, target, pool(target.upstream()),
                location.maxBodySize().orElse(config.limits().maxBodySize()), files));
    }

    /** A responder for try-files' `@name` fallback: proxy to upstream {@code name} with default proxy settings. */
    public Responder named(String upstream) {
        TargetConfig.Proxy target = new TargetConfig.Proxy(upstream, Optional.empty(), false, true, true,
                DEFAULT_CLIENT_BODY_BUFFER, DEFAULT_PROXY_BUFFERS, false, ForwardedHeader.ALL, Map.of(), Map.of(),
                true);
        // The static location that falls back here has already held the body to its own max-body-size (the
        // server's exchange stage does): this one must not refuse less, so it takes the largest any location has.
        long largest = config.allLocations().stream()
                .mapToLong(l -> l.maxBodySize().orElse(config.limits().maxBodySize()))
                .reduce(config.limits().maxBodySize(), Math::max);
        LocationConfig location = new LocationConfig(
                new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, "/"), target,
                List.of(), List.of(), List.of(), List.of(), "@" + upstream, java.util.OptionalLong.of(largest));
        return responder(location, target);
    }

    /** Every upstream pool by name, in configuration order (metrics). */
    public Map<String, UpstreamPool> pools() {
        return java.util.Collections.unmodifiableMap(pools);
    }

    UpstreamPool pool(String name) {
        UpstreamPool pool = pools.get(name);
        if (pool == null) {
            throw new IllegalArgumentException("upstream: " + name + " (expected one of " + pools.keySet() + ")");
        }
        return pool;
    }

    /** Stops health checks, closes pooled connections. */
    @Override
    public void close() {
        pools.values().forEach(UpstreamPool::close);
        files.shutdown();
    }
}
