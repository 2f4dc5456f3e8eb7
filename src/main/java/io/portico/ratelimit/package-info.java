/**
 * Per-client request limits in front of the responders: nginx's {@code limit_req} (rate with burst, nodelay,
 * two-stage delay, dry run) and {@code limit_conn} (requests in progress per key).
 *
 * <p>Owns: the zone arithmetic ({@link io.portico.ratelimit.ZoneStore} and its stores), request keys, the
 * per-zone counters, the channel handler that passes, delays, or rejects a request, and the
 * {@code portico check} description of each zone.
 *
 * <p>Threading: zones are shared by every event loop and are thread-safe (lock-free per key); a
 * {@link io.portico.ratelimit.RateLimitHandler} belongs to one client channel and runs only on its event loop.
 * Delays never block: a delayed request waits on its event loop's timer. Zones kept in Redis (a server, Sentinel
 * or Redis Cluster) are asked through Lettuce's asynchronous API on its own I/O thread; the answer hops back to the
 * channel's loop, and nothing waits for Redis on a loop.
 */
package io.portico.ratelimit;
