/**
 * The running server: {@code PorticoServer} (event loops, listeners, graceful drain), the transport choice, and the
 * client connection's pipeline, assembled in {@code ClientChannelInitializer}: connection limits, the PROXY protocol
 * header where a listener takes one ({@code ProxyProtocolHandler}), TLS and ALPN, the
 * client timers, the strict HTTP/1.1 codec and its framing rules, keep-alive, or HTTP/2's codec with a child
 * channel per stream; then, for every request, its record and access log, routing, rate limiting and the exchange
 * with its responder.
 *
 * <p>Threading: every handler of a connection runs on that connection's event loop and is owned by it (the few
 * {@code @Sharable} ones hold no per-connection state); {@code PorticoServer.start} and {@code stop} run on the
 * caller's thread, never a loop.
 */
package io.portico.server;
