/**
 * Choosing what answers a request: {@link io.portico.route.HostRouter} (a virtual host by name, then wildcard) and
 * {@link io.portico.route.Router} (exact paths by hash, regexes in order, prefixes in a {@code PrefixTree}), built
 * once from the configuration, and the {@code return} responder. What a match yields ({@link
 * io.portico.exchange.Route}) and what answers it are in {@code io.portico.exchange}; the server's {@code
 * RouteHandler} asks the routers of the configuration a request started under.
 *
 * <p>Threading: routers are immutable and shared by every event loop.
 */
package io.portico.route;
