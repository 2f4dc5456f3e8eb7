package io.portico.config;

/**
 * nginx's {@code limit_conn}: at most {@code max} requests in progress per key.
 *
 * @param ipv6Prefix IPv6 clients are keyed by this prefix (as in rate-limit zones), so one host cannot take more
 *     slots by rotating through the addresses of its /64
 */
public record LimitConnConfig(String name, String key, int max, int status, int ipv6Prefix) {

    /** IPv6 clients keyed by their /64, the default. */
    public LimitConnConfig(String name, String key, int max, int status) {
        this(name, key, max, status, 64);
    }
}
