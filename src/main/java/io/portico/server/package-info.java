/**
 * The running server: {@code PorticoServer} (event loops, listeners, graceful drain), the transport choice, and the
 * client connection's pipeline, assembled in {@code ClientChannelInitializer}: connection limits, the PROXY protocol
 * header where a listener takes one ({@code ProxyProtocolHandler}), TLS and ALPN, the
 * client timers, the strict HTTP/1.1 codec and its framing rules, keep-alive, or HTTP/2's codec with a child
 * channel per stream; then, for every request, its record and access log, routing, rate limiting and the exchange
 * with its responder. The exchanges' owner ({@code KeepAliveHandler}, {@code StreamExchangeHandler} on a stream)
 * detects each request's and response's start and end and tells the other stages; early refusals all go through
 * {@code Refusal}. A reload replaces the {@code Generation} (one configuration's routers, zones, pools and TLS)
 * that connections and requests read from one reference.
 *
 * <p>Threading: every handler of a connection runs on that connection's event loop and is owned by it (the few
 * {@code @Sharable} ones hold no per-connection state); {@code PorticoServer.start}, {@code reload} and
 * {@code stop} run on the caller's thread, never a loop; removed listeners drain and retired generations close
 * on {@code portico-reload}.
 */
package io.portico.server;
