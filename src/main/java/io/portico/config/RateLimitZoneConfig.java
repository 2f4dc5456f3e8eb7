package io.portico.config;

import java.net.URI;
import java.time.Duration;

/**
 * One {@code rate-limits} zone: nginx's {@code limit_req_zone} plus the {@code limit_req} options.
 *
 * @param requests with {@code per}, the rate: {@code 50r/s} is 50 per 1s, {@code 30r/m} 30 per 60s
 * @param burst excess requests tolerated beyond the rate
 * @param nodelay serve the burst at once instead of pacing it
 * @param delay nginx's two-stage mode: this many excess requests are served at once, the rest paced; 0 with
 *     {@code nodelay = false} paces every excess request
 * @param headers when the RateLimit-Policy / RateLimit headers are sent
 * @param store where the zone's state lives
 */
public record RateLimitZoneConfig(
        String name,
        String key,
        long requests,
        Duration per,
        int burst,
        boolean nodelay,
        int delay,
        int status,
        long maxClients,
        boolean dryRun,
        int ipv6Prefix,
        Headers headers,
        Store store) {

    /** A zone whose state lives in this process. */
    public RateLimitZoneConfig(String name, String key, long requests, Duration per, int burst, boolean nodelay,
            int delay, int status, long maxClients, boolean dryRun, int ipv6Prefix, Headers headers) {
        this(name, key, requests, per, burst, nodelay, delay, status, maxClients, dryRun, ipv6Prefix, headers,
                Store.LOCAL);
    }

    /**
     * Where a zone's state lives: in this process ({@link #LOCAL}), or on Redis (one server, one found through
     * Sentinel, or a Redis Cluster) that several instances share, so that a client's requests through any of them
     * draw on one bucket.
     *
     * @param redis {@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code redis-cluster://} or
     *     {@code rediss-cluster://} URI; null for a local zone
     * @param timeout how long a decision may take before {@code onFailure} decides instead (unused when local)
     * @param onFailure what decides when Redis cannot, in time
     * @param failureThreshold failures in a row after which Redis is not asked for {@code failurePause}
     * @param failurePause how long on-store-failure decides at once after {@code failureThreshold} failures
     * @param ca PEM certificates a {@code rediss} server's certificate must chain to; null: the JDK's trust store
     */
    public record Store(URI redis, Duration timeout, Failure onFailure, int failureThreshold, Duration failurePause,
            java.nio.file.Path ca) {
        /** A local zone with the reference defaults. */
        public static final Store LOCAL = new Store(null, Duration.ofMillis(100), Failure.LOCAL);

        /** The reference's failure threshold and pause (3 failures, 1 s), the JDK's trust store. */
        public Store(URI redis, Duration timeout, Failure onFailure) {
            this(redis, timeout, onFailure, 3, Duration.ofSeconds(1), null);
        }

        public boolean shared() {
            return redis != null;
        }

        /** Whether the store is a Redis Cluster ({@code redis-cluster://} or {@code rediss-cluster://}). */
        public boolean cluster() {
            return redis != null && redis.getScheme().endsWith("-cluster");
        }

        /** Whether the store is reached over TLS ({@code rediss://} or {@code rediss-cluster://}). */
        public boolean tls() {
            return redis != null && redis.getScheme().startsWith("rediss");
        }
    }

    /** {@code on-store-failure}: what decides a request when the zone's Redis store cannot. */
    public enum Failure {
        /** This instance's own bucket for the key (the zone's arithmetic, not shared): limits stay per instance. */
        LOCAL,
        /** Serve the request. */
        ALLOW,
        /** Answer the zone's status. */
        REJECT
    }

    /** {@code headers}: which responses carry the IETF RateLimit fields (Retry-After is always on rejections). */
    public enum Headers {
        /** Retry-After only. */
        OFF("off"),
        /** On rejections only (the default; {@code true} in older configurations). */
        ON_REJECT("on-reject"),
        /** On every response of a request the zone looked at, passed or rejected. */
        ALWAYS("always");

        private final String text;

        Headers(String text) {
            this.text = text;
        }

        /** As written in configuration. */
        public String text() {
            return text;
        }
    }

    /** Requests per second, exactly as configured (no nginx milli-request rounding). */
    public double ratePerSecond() {
        return requests * 1_000_000_000.0 / per.toNanos();
    }
}
