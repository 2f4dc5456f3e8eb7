/**
 * Choosing what answers a request: {@link io.portico.route.HostRouter} (a virtual host by name, then wildcard) and
 * {@link io.portico.route.Router} (exact paths by hash, regexes in order, prefixes in a {@code PrefixTree}), built
 * once from the configuration; the pipeline's route stage, {@link io.portico.route.RouteHandler}, which asks each
 * request ({@link io.portico.route.Routable}, the server's record of it) for the routers of the configuration it
 * started under; and the {@code return} responder. What a match yields ({@link io.portico.exchange.Route}) and
 * what answers it are in {@code io.portico.exchange}.
 *
 * <p>Threading: routers are immutable and shared by every event loop; a {@code RouteHandler} belongs to one client
 * channel (or HTTP/2 stream) and runs on its event loop.
 */
package io.portico.route;
