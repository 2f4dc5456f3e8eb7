package io.portico.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A named pool of app servers and how Portico talks to them. */
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
        Optional<HealthCheckConfig> healthCheck) {

    public enum Balance {
        ROUND_ROBIN,
        LEAST_CONN,
        IP_HASH,
        HASH,
        RANDOM_TWO
    }
}
