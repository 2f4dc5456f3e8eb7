package io.portico.config;

/** nginx's {@code limit_conn}: at most {@code max} requests in progress per key. */
public record LimitConnConfig(String name, String key, int max, int status) {}
