/**
 * Upstream pools: the servers of each configured upstream, their passive and active health, the balancing
 * policies that choose one, and the per-event-loop pools of idle keep-alive connections to them. A connection
 * speaks its upstream's protocol through the codec its pipeline is built with: HTTP/1.1
 * ({@code UpstreamCodec}) or uwsgi ({@code UwsgiCodec}: a uwsgi request, an HTTP response, read by the same
 * decoder); the exchange above sees HTTP messages either way.
 *
 * <p>Threading: an {@link io.portico.upstream.UpstreamPool} and its servers are shared by every event loop, so their
 * shared state (health, counters, balancer weights) is atomic or guarded by short monitors. Connections are never
 * shared: each event loop owns its {@link io.portico.upstream.LoopConnections}, and an
 * {@link io.portico.upstream.UpstreamConnection} is used only on the event loop it was created on, which is the
 * event loop of the client channel it serves, so the pools need no locks. A server's
 * {@link io.portico.upstream.ConnectionLimit} ({@code max-connections}) is shared, atomics and a queue; when it counts
 * kept FastCGI connections, what it needs of another loop's pool (close an idle connection) is a task on that loop. The error log of a server
 * ({@link io.portico.upstream.ErrorLog}) is shared too: one CAS per line written, a counter per line dropped.
 */
package io.portico.upstream;
