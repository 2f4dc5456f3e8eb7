package io.portico.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The whole validated configuration: immutable, built once by {@link ConfigLoader}.
 *
 * @param pidFile where {@code serve} writes its process id ({@code portico reload} reads it); empty when off
 */
public record PorticoConfig(
        Path file,
        Path prefix,
        List<ListenerConfig> listen,
        int workers,
        IoTransport transport,
        AccessLogConfig accessLog,
        Duration shutdownTimeout,
        LimitsConfig limits,
        StaticConfig staticFiles,
        List<Cidr> trustedProxies,
        List<Cidr> allowUnlimited,
        Map<String, UpstreamConfig> upstreams,
        Map<String, RateLimitZoneConfig> rateLimits,
        Map<String, LimitConnConfig> limitConn,
        List<LocationConfig> locations,
        DemoAppConfig demoApp,
        List<HostConfig> hosts,
        Http2Config http2,
        Duration drainDelay,
        Optional<Path> pidFile,
        Map<String, CacheZoneConfig> caches) {

    /** Without response cache zones. */
    public PorticoConfig(Path file, Path prefix, List<ListenerConfig> listen, int workers, IoTransport transport,
            AccessLogConfig accessLog, Duration shutdownTimeout, LimitsConfig limits, StaticConfig staticFiles,
            List<Cidr> trustedProxies, List<Cidr> allowUnlimited, Map<String, UpstreamConfig> upstreams,
            Map<String, RateLimitZoneConfig> rateLimits, Map<String, LimitConnConfig> limitConn,
            List<LocationConfig> locations, DemoAppConfig demoApp, List<HostConfig> hosts,
            Http2Config http2, Duration drainDelay, Optional<Path> pidFile) {
        this(file, prefix, listen, workers, transport, accessLog, shutdownTimeout, limits, staticFiles, trustedProxies,
                allowUnlimited, upstreams, rateLimits, limitConn, locations, demoApp, hosts, http2, drainDelay, pidFile,
                Map.of());
    }

    /** Without a drain delay (tests and tools that build a configuration by hand). */
    public PorticoConfig(Path file, Path prefix, List<ListenerConfig> listen, int workers, IoTransport transport,
            AccessLogConfig accessLog, Duration shutdownTimeout, LimitsConfig limits, StaticConfig staticFiles,
            List<Cidr> trustedProxies, List<Cidr> allowUnlimited, Map<String, UpstreamConfig> upstreams,
            Map<String, RateLimitZoneConfig> rateLimits, Map<String, LimitConnConfig> limitConn,
            List<LocationConfig> locations, DemoAppConfig demoApp, List<HostConfig> hosts,
            Http2Config http2) {
        this(file, prefix, listen, workers, transport, accessLog, shutdownTimeout, limits, staticFiles, trustedProxies,
                allowUnlimited, upstreams, rateLimits, limitConn, locations, demoApp, hosts, http2, Duration.ZERO,
                Optional.empty());
    }

    /** The top-level locations (the default host's) and every virtual host's, for what is built per location. */
    public List<LocationConfig> allLocations() {
        if (hosts == null || hosts.isEmpty()) {
            return locations;
        }
        List<LocationConfig> all = new ArrayList<>(locations);
        hosts.forEach(h -> all.addAll(h.locations()));
        return List.copyOf(all);
    }
}
