package io.portico.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The whole validated configuration: immutable, built once by {@link ConfigLoader}. */
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
        DemoAppConfig demoApp) {}
