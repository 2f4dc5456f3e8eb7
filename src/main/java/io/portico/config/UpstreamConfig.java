package io.portico.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A named pool of app servers and how Portico talks to them.
 *
 * @param proxyMaxHeaderSize bytes of a response's header field lines at most, line endings not counted (the status
 *     line has its own bound); beyond it the response is a 502
 * @param proxyMaxHeaderCount header fields of a response at most; beyond it the response is a 502
 * @param protocol what every server of the pool speaks
 */
public record UpstreamConfig(
        String name,
        List<UpstreamServerConfig> servers,
        Balance balance,
        String hashKey,
        int keepalive,
        Duration keepaliveTimeout,
        int maxConnections,
        int maxQueue,
        Duration queueTimeout,
        Duration connectTimeout,
        Duration sendTimeout,
        Duration readTimeout,
        int retries,
        Optional<HealthCheckConfig> healthCheck,
        int proxyMaxHeaderSize,
        int proxyMaxHeaderCount,
        UpstreamProtocol protocol) {

    /** An HTTP upstream. */
    public UpstreamConfig(String name, List<UpstreamServerConfig> servers, Balance balance, String hashKey,
            int keepalive, Duration keepaliveTimeout, int maxConnections, int maxQueue, Duration queueTimeout,
            Duration connectTimeout, Duration sendTimeout, Duration readTimeout, int retries,
            Optional<HealthCheckConfig> healthCheck, int proxyMaxHeaderSize, int proxyMaxHeaderCount) {
        this(name, servers, balance, hashKey, keepalive, keepaliveTimeout, maxConnections, maxQueue, queueTimeout,
                connectTimeout, sendTimeout, readTimeout, retries, healthCheck, proxyMaxHeaderSize,
                proxyMaxHeaderCount, UpstreamProtocol.HTTP);
    }

    public enum Balance {
        ROUND_ROBIN,
        LEAST_CONN,
        IP_HASH,
        HASH,
        RANDOM_TWO
    }
}
