/**
 * The contract between the server and what answers a request: the SPI a responder implements ({@link
 * io.portico.exchange.Responder}, which opens an {@link io.portico.exchange.Exchange} per request) and what it sees of
 * the request ({@link io.portico.exchange.ClientExchange}: the client channel, the matched {@link
 * io.portico.exchange.Route}, the normalized path, the client's address, the access log's notes in {@link
 * io.portico.exchange.RequestLog}); what responders share to write answers ({@code ResponseHeaders}, {@code
 * PerSecond} for the texts that change once a second) and the variables of templates ({@code Variables}). Static
 * files, the proxy, the cache, {@code return} and the metrics stage are written against this package only, so an
 * HTTP/2 stream and an HTTP/1 connection feed them alike.
 *
 * <p>Threading: an exchange lives on its client channel's event loop; routes and responders are built once from a
 * configuration and shared by every loop.
 */
package io.portico.exchange;
