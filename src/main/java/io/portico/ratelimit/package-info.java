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
 * or Redis Cluster) are asked through Lettuce's asynchronous API on a connection the asking loop runs itself (one
 * per loop and store, {@link io.portico.ratelimit.StoreLanes}): the loop writes the command and reads the reply,
 * with no hop to another thread, and nothing waits for Redis on a loop. Lettuce's other work (reconnect delays,
 * topology refresh, its own command timeouts) runs on one thread of its own.
 */
package io.portico.ratelimit;
