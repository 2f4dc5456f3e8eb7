/**
 * What the tests of every package share. For tests through the whole server: a real server from configuration
 * text on an ephemeral loopback port ({@code TestServers}); the one raw HTTP/1.1 client ({@code RawHttp}, whose
 * answers are {@code Response}s); PROXY protocol headers written from the specification ({@code ProxyHeaders});
 * external processes started and stopped by the test ({@code ExternalProcess}, {@code HAProxyProcess});
 * certificates made per run ({@code TestCertificates}); the transport a test asks for ({@code TestTransport}). For
 * a stage or responder tested alone on an {@code EmbeddedChannel}: a client exchange ({@code FakeClientExchange})
 * and the exchange owner's events ({@code ResponseEvents}). And log capture, temp-file counts, a refused port, and
 * {@code LeakReportExtension}, which fails a test class during which Netty's leak detector (PARANOID in every test
 * JVM) reported a leak. None of it reaches into a package's internals: a test that must
 * ({@code server.ServerProbe}) lives in that package.
 *
 * <p>Threading: the socket helpers block the calling test thread, with timeouts (a server that never answers fails
 * a test rather than hanging it), and never run on an event loop; the {@code EmbeddedChannel} helpers run on the
 * test thread, which is that channel's loop.
 */
package io.portico.testing;
