package io.portico.proxy;

import io.portico.config.HealthCheckConfig;
import io.portico.config.ForwardedHeader;
import io.portico.config.LocationConfig;
import io.portico.config.TargetConfig;
import io.portico.config.TextTemplate;
import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Config records with test defaults; tests change what they exercise through the withers. */
final class TestConfigs {
    private TestConfigs() {}

    static UpstreamServerConfig server(int port) {
        return server(port, 1);
    }

    static UpstreamServerConfig server(int port, int weight) {
        return new UpstreamServerConfig(
                new UpstreamAddress.Tcp("127.0.0.1", new InetSocketAddress("127.0.0.1", port)), weight, 0,
                Duration.ofSeconds(10), false);
    }

    /** A server that {@code maxFails} failures within 10 s take out of rotation for 10 s. */
    static UpstreamServerConfig failingAfter(int port, int maxFails) {
        return new UpstreamServerConfig(
                new UpstreamAddress.Tcp("127.0.0.1", new InetSocketAddress("127.0.0.1", port)), 1, maxFails,
                Duration.ofSeconds(10), false);
    }

    static UpstreamConfig upstream(List<UpstreamServerConfig> servers) {
        return new UpstreamConfig("app", servers, UpstreamConfig.Balance.ROUND_ROBIN, "$request_uri", 8,
                Duration.ofSeconds(60), 0, 0, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
                Duration.ofSeconds(5), 1, Optional.empty(), 16 * 1024, 100);
    }

    static UpstreamConfig withReadTimeout(UpstreamConfig u, Duration readTimeout) {
        return new UpstreamConfig(u.name(), u.servers(), u.balance(), u.hashKey(), u.keepalive(), u.keepaliveTimeout(),
                u.maxConnections(), u.maxQueue(), u.queueTimeout(), u.connectTimeout(), u.sendTimeout(), readTimeout,
                u.retries(), u.healthCheck(), u.proxyMaxHeaderSize(), u.proxyMaxHeaderCount());
    }

    static UpstreamConfig withTimeouts(UpstreamConfig u, Duration connectTimeout, Duration readTimeout) {
        return new UpstreamConfig(u.name(), u.servers(), u.balance(), u.hashKey(), u.keepalive(), u.keepaliveTimeout(),
                u.maxConnections(), u.maxQueue(), u.queueTimeout(), connectTimeout, u.sendTimeout(), readTimeout,
                u.retries(), u.healthCheck(), u.proxyMaxHeaderSize(), u.proxyMaxHeaderCount());
    }

    static UpstreamConfig withRetries(UpstreamConfig u, int retries) {
        return new UpstreamConfig(u.name(), u.servers(), u.balance(), u.hashKey(), u.keepalive(), u.keepaliveTimeout(),
                u.maxConnections(), u.maxQueue(), u.queueTimeout(), u.connectTimeout(), u.sendTimeout(),
                u.readTimeout(), retries, u.healthCheck(), u.proxyMaxHeaderSize(), u.proxyMaxHeaderCount());
    }

    static UpstreamConfig withLimit(UpstreamConfig u, int maxConnections, int maxQueue, Duration queueTimeout) {
        return new UpstreamConfig(u.name(), u.servers(), u.balance(), u.hashKey(), u.keepalive(), u.keepaliveTimeout(),
                maxConnections, maxQueue, queueTimeout, u.connectTimeout(), u.sendTimeout(), u.readTimeout(),
                u.retries(), u.healthCheck(), u.proxyMaxHeaderSize(), u.proxyMaxHeaderCount());
    }

    static UpstreamConfig withHealth(UpstreamConfig u, HealthCheckConfig hc) {
        return new UpstreamConfig(u.name(), u.servers(), u.balance(), u.hashKey(), u.keepalive(), u.keepaliveTimeout(),
                u.maxConnections(), u.maxQueue(), u.queueTimeout(), u.connectTimeout(), u.sendTimeout(),
                u.readTimeout(), u.retries(), Optional.of(hc), u.proxyMaxHeaderSize(), u.proxyMaxHeaderCount());
    }

    static TargetConfig.Proxy target(boolean requestBuffering, boolean responseBuffering) {
        return new TargetConfig.Proxy("app", Optional.empty(), false, requestBuffering, responseBuffering, 16 * 1024,
                4 * 1024 * 1024, false, ForwardedHeader.ALL, Map.of(), Map.of(), true);
    }

    /** {@code t} with {@code ignore-client-abort} set. */
    static TargetConfig.Proxy ignoringClientAbort(TargetConfig.Proxy t) {
        return new TargetConfig.Proxy(t.upstream(), t.uriPrefix(), t.hostFromUpstream(), t.requestBuffering(),
                t.responseBuffering(), t.clientBodyBufferSize(), t.proxyBuffers(), t.via(), t.forwardedHeaders(),
                t.setRequestHeaders(), t.setResponseHeaders(), t.mergeSlashes(), t.params(), t.fastcgiRoot(),
                t.fastcgiIndex(), true);
    }

    static TargetConfig.Proxy target(Optional<String> uriPrefix, boolean via, Map<String, String> setRequest,
            Map<String, String> setResponse) {
        return new TargetConfig.Proxy("app", uriPrefix, false, true, true, 16 * 1024, 4 * 1024 * 1024, via,
                ForwardedHeader.ALL, literals(setRequest), literals(setResponse), true);
    }

    private static Map<String, TextTemplate> literals(Map<String, String> headers) {
        Map<String, TextTemplate> out = new java.util.HashMap<>();
        headers.forEach((name, value) -> out.put(name, TextTemplate.literal(value)));
        return Map.copyOf(out);
    }

    static LocationConfig location(String prefix, TargetConfig target) {
        return new LocationConfig(new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, prefix), target, List.of(),
                List.of(), "test");
    }
}
