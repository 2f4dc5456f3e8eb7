/**
 * The reverse proxy: the exchange between one client request and an upstream server. It rewrites the request head
 * (hop-by-hop headers, forwarding headers, Host), optionally buffers the request and response bodies to protect app
 * servers from slow clients, streams otherwise with backpressure end to end, retries safely, turns upstream failures
 * into 502/503/504, and relays WebSocket connections after an upgrade. For a uwsgi upstream it adds the CGI
 * variables the head does not carry ({@code CgiVariables}), written just before the head.
 *
 * <p>Threading: {@link io.portico.proxy.Proxies} and its responders are shared by every event loop and immutable. A
 * {@code ProxyExchange} lives on the client channel's event loop, and its upstream connection is opened on that same
 * loop, so per-request state needs no synchronization. Its parts live and die with it, on that loop: the
 * {@code RequestForwarder} (request side), the {@code ResponseRelay} (response side), one {@code Attempt} per try
 * on a server, and the {@code Failover} rules that decide between another try and an error status.
 */
package io.portico.proxy;
