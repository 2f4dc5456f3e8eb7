package io.portico.config;

import java.time.Duration;

/**
 * nginx's {@code limit_conn}: at most {@code max} requests in progress per key.
 *
 * @param ipv6Prefix IPv6 clients are keyed by this prefix (as in rate-limit zones), so one host cannot take more
 *     slots by rotating through the addresses of its /64
 * @param store where the counts live: this process, or Redis shared by several instances (its {@code timeout},
 *     {@code onFailure} and failure pause as for a rate-limit zone)
 * @param lease with a Redis store, how long a slot outlives the instance that holds it if that instance stops
 *     renewing it (crashed, cut off): renewed every third of it while held
 */
public record LimitConnConfig(String name, String key, int max, int status, int ipv6Prefix,
        RateLimitZoneConfig.Store store, Duration lease) {

    /** IPv6 clients keyed by their /64, the default. */
    public LimitConnConfig(String name, String key, int max, int status) {
        this(name, key, max, status, 64);
    }

    /** Counted in this process. */
    public LimitConnConfig(String name, String key, int max, int status, int ipv6Prefix) {
        this(name, key, max, status, ipv6Prefix, RateLimitZoneConfig.Store.LOCAL, Duration.ofSeconds(10));
    }
}
