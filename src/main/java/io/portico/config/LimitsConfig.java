package io.portico.config;

import java.time.Duration;

/**
 * Limits on what one client may send and how long it may take; each has its status code documented in
 * reference.conf.
 *
 * @param clientBodyMinRate bytes per second a request body must average over every {@code clientBodyTimeout}
 *     window once it has run for one (0: no minimum)
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
        int maxConnections,
        long clientBodyMinRate) {

    /** Limits without a minimum body rate. */
    public LimitsConfig(int maxRequestLine, int maxHeaderSize, int maxHeaderCount, long maxBodySize,
            Duration clientHeaderTimeout, Duration clientBodyTimeout, Duration sendTimeout, Duration keepaliveTimeout,
            int keepaliveRequests, int maxConnections) {
        this(maxRequestLine, maxHeaderSize, maxHeaderCount, maxBodySize, clientHeaderTimeout, clientBodyTimeout,
                sendTimeout, keepaliveTimeout, keepaliveRequests, maxConnections, 0);
    }
}
