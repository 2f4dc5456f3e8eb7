/**
 * The response cache of proxy locations (nginx's {@code proxy_cache}): zones in memory weighed in bytes ({@link
 * io.portico.cache.CacheZone}), the rules of what may be stored and for how long ({@link
 * io.portico.cache.CachePolicy}), one upstream request per key for concurrent misses ({@link
 * io.portico.cache.Fill}), stale copies while one background refresh runs or when the upstream fails, purges
 * through the status location, and the figures the metrics read. {@link io.portico.cache.Caches} builds it all
 * from the configuration; the proxy only lets a {@link io.portico.proxy.ResponseTap} watch its responses.
 *
 * <p>Threading: a zone and its in-flight fills are shared by every event loop (Caffeine and concurrent maps, a
 * fill's waiter list under its lock); everything else runs on the client's event loop. A request waiting for
 * another's response is a callback run on its own loop, never a blocked thread. Stored bodies are heap byte
 * arrays, so an entry holds no reference count and an eviction frees nothing by hand.
 */
package io.portico.cache;
