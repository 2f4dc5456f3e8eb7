package io.portico.config;

import java.time.Duration;

/**
 * One entry of {@code caches}: an in-memory response cache zone (nginx's {@code proxy_cache_path ... keys_zone}).
 *
 * @param maxSize bytes the zone's entries may weigh together (bodies, heads, keys and a fixed overhead each)
 * @param inactive an entry nobody asked for in this long is dropped, fresh or not (nginx's {@code inactive})
 */
public record CacheZoneConfig(String name, long maxSize, Duration inactive) {}
