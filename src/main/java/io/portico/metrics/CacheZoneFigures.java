package io.portico.metrics;

/**
 * What one response cache zone counted, read at scrape time: requests by result, responses stored, entries
 * evicted for room, and what the zone holds now.
 *
 * @param coalesced misses that waited for another request's upstream response on the same key
 * @param bytes the zone's weight now (bodies, heads, keys and per-entry overhead), at most its max-size
 */
public record CacheZoneFigures(long hits, long misses, long stale, long updating, long bypass, long coalesced,
        long stored, long evictions, long bytes, long entries) {}
