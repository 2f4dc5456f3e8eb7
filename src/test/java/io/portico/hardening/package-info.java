/**
 * The hardening suite: the whole server, started from configuration text on loopback, against what a hostile or
 * broken peer does on either side. Clients that frame requests badly, smuggle, traverse paths, hold connections
 * or leave half-way ({@code FramingTest}, {@code SmugglingTest}, {@code PathTraversalTest}, {@code SlowClientsTest},
 * ...); upstreams that misbehave ({@code UpstreamFaultsTest}, {@code NonIdempotentReplayTest}) behind a {@code
 * RecordingUpstream} that keeps every byte it receives; reload, the PROXY protocol and HAProxy in front. A test
 * here asserts what a client or an upstream sees on the wire, or what an operator sees (access log, metrics), never
 * a handler's fields. {@code IdleConnectionsMemory} is a measurement run by hand, not a test.
 *
 * <p>Threading: each test drives blocking sockets from its own thread; the in-test upstreams run a thread per
 * connection; the server's event loops are its own.
 */
package io.portico.hardening;
