/**
 * Choosing what answers a request, and the contract between the server and what answers: {@link
 * io.portico.route.HostRouter} (a virtual host by name, then wildcard) and {@link io.portico.route.Router} (exact
 * paths by hash, regexes in order, prefixes in a {@code PrefixTree}), built once from the configuration; the SPI a
 * responder implements ({@code Responder}, {@code Exchange}) and sees ({@code ClientExchange}, {@code RequestLog});
 * the {@code return} responder; the variables of templates; the names of the client pipeline's stages and its one
 * later change ({@code ClientPipeline.switchProtocols}); and what every stage of a client channel shares: its read
 * gate ({@code ReadGate}: reads held for named reasons) and its exchange events ({@code ExchangeEvents}: told once by
 * the exchanges' owner, observed by the other stages).
 *
 * <p>Threading: routers are immutable and shared by every event loop; an exchange lives on its client channel's
 * loop, and so do a client channel's read gate and exchange events.
 */
package io.portico.route;
