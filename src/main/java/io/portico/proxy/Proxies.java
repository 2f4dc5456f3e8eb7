package io.portico.proxy;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.portico.config.ForwardedHeader;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.config.UpstreamConfig;
import io.portico.exchange.Responder;
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
    /** Shared by every configuration a reload puts in place: an exchange of an older one may still use it. */
    private final ExecutorService files;

    private Proxies(PorticoConfig config, Map<String, UpstreamPool> pools, ExecutorService files) {
        this.config = config;
        this.pools = pools;
        this.files = files;
    }

    /** Builds upstream pools from config; starts active health checks on {@code group}. */
    public static Proxies start(PorticoConfig config, EventLoopGroup group) {
        return start(config, group, null);
    }

    /**
     * As {@link #start(PorticoConfig, EventLoopGroup)}, for a reload: a pool whose definition (servers and every
     * setting) is the same in {@code previous} is taken over, with its idle connections, health checks and each
     * server's health; a changed or new one starts afresh. {@link #retire} then closes what was not taken.
     */
    public static Proxies start(PorticoConfig config, EventLoopGroup group, Proxies previous) {
        Map<String, UpstreamPool> pools = new LinkedHashMap<>();
        List<UpstreamPool> started = new java.util.ArrayList<>();
        for (Entry<String, UpstreamConfig> e : config.upstreams().entrySet()) {
            UpstreamPool before = previous == null ? null : previous.pools.get(e.getKey());
            if (before != null && before.config().equals(e.getValue())) {
                pools.put(e.getKey(), before);
                continue;
            }
            UpstreamPool pool = new UpstreamPool(e.getValue(), System::nanoTime);
            pool.requireTransport(group);
            pools.put(e.getKey(), pool);
            started.add(pool);
        }
        started.forEach(p -> p.startHealthChecks(group));
        ExecutorService files = previous != null ? previous.files
                : Executors.newFixedThreadPool(2, new DefaultThreadFactory("portico-proxy-files", true));
        return new Proxies(config, pools, files);
    }

    /** Names of the pools this instance took over from {@code previous}. */
    public List<String> keptFrom(Proxies previous) {
        return pools.entrySet().stream()
                .filter(e -> previous != null && previous.pools.get(e.getKey()) == e.getValue())
                .map(Entry::getKey).toList();
    }

    /**
     * After a reload: closes the pools {@code next} did not take over (their health checks stop, their idle
     * connections close; a connection in use closes when its exchange ends instead of going back to a pool).
     */
    public void retire(Proxies next) {
        for (UpstreamPool pool : pools.values()) {
            if (!next.pools.containsValue(pool)) {
                pool.close();
            }
        }
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
