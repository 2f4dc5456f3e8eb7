package io.portico.config;

import java.time.Duration;

/**
 * Limits on what one client may send and how long it may take; each has its status code documented in
 * reference.conf.
 */
public record LimitsConfig(
        int maxRequestLine,
        int maxHeaderSize,
        int maxHeaderCount,
        long maxBodySize,
        Duration clientHeaderTimeout,
        Duration clientBodyTimeout,
        Duration sendTimeout,
        Duration keepaliveTimeout,
        int keepaliveRequests,
        int maxConnections) {}
