package io.portico.proxy;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.target;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamServerConfig;
import io.portico.testing.TestTransport;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** WebSocket passthrough, unix socket upstreams, and a client that leaves mid-response. */
class ProxyUpgradeAndSocketsTest {

    @Test
    void webSocketUpgradeRelaysBytesBothWays() throws Exception {
        CountDownLatch upstreamSawClose = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    assertThat(req.header("upgrade")).isEqualTo("websocket");
                    out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    InputStream in = Channels.newInputStream(s);
                    byte[] buf = new byte[1024];
                    for (int n; (n = in.read(buf)) > 0; ) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                    upstreamSawClose.countDown();
                    return false;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, 2, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
            Response head = client.readHead();
            assertThat(head.status()).isEqualTo(101);
            assertThat(head.header("upgrade")).isEqualTo("websocket");
            assertThat(head.header("sec-websocket-accept")).isEqualTo("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
            for (String frame : List.of("\u0081\u0005hello", "GET / HTTP/1.1\r\n\r\n", "x".repeat(100_000))) {
                client.send(frame);
                byte[] echoed = client.input().readNBytes(frame.length());
                assertThat(new String(echoed, StandardCharsets.ISO_8859_1)).isEqualTo(frame);
            }
            client.close();
            assertThat(upstreamSawClose.await(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aRelayedWebSocketHoldsItsServersConnectionPermitUntilItCloses() throws Exception {
        CountDownLatch upstreamSawClose = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    if (!"websocket".equals(req.header("upgrade"))) {
                        TestUpstream.respond(out, 200, "plain");
                        return true;
                    }
                    out.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    InputStream in = Channels.newInputStream(s);
                    while (in.read() >= 0) {
                        // hold the socket until the proxy closes it
                    }
                    upstreamSawClose.countDown();
                    return false;
                });
                // One connection per server, no queue: a request finding the server at its limit is 503 at once.
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withLimit(upstream(List.of(server(app.port()))), 1, 0, Duration.ofMillis(100)),
                        target(true, true), 1 << 20, 1, true);
                RawHttp ws = new RawHttp(proxy.port());
                RawHttp plain = new RawHttp(proxy.port())) {
            ws.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n");
            assertThat(ws.readHead().status()).isEqualTo(101);
            assertThat(proxy.serverActive(0)).isEqualTo(1);
            assertThat(plain.get("/").status()).isEqualTo(503);
            ws.close();
            assertThat(upstreamSawClose.await(5, TimeUnit.SECONDS)).isTrue();
            await().until(() -> proxy.serverActive(0) == 0);
            try (RawHttp again = new RawHttp(proxy.port())) { // the 503 closed the first one
                Response r = again.get("/");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("plain");
            }
        }
    }

    @Test
    void unixSocketUpstream(@TempDir Path dir) throws Exception {
        assumeThat(TestTransport.of(true).hasUnixSockets()).as("unix socket upstreams need a native transport").isTrue();
        Path socket = dir.resolve("app.sock");
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("over unix"), socket)) {
            UpstreamServerConfig unix = new UpstreamServerConfig(new UpstreamAddress.Unix(socket), 1, 0,
                    Duration.ofSeconds(1), false);
            try (ProxiedServer proxy = new ProxiedServer(upstream(List.of(unix)), target(true, true), 1 << 20, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                for (int i = 0; i < 3; i++) {
                    Response r = client.get("/u");
                    assertThat(r.status()).isEqualTo(200);
                    assertThat(r.text()).isEqualTo("over unix");
                }
                assertThat(app.connections.get()).isEqualTo(1);
                assertThat(app.requests.peek().header("host")).isEqualTo("front.test");
            }
        }
        assertThat(Files.exists(socket)).isTrue();
    }

    /**
     * The client closes while its response is stalled: its FIN reaches the exchange (ignore-client-abort is off),
     * which closes the upstream connection at once rather than when read-timeout (5 s here) fires.
     */
    @Test
    void clientLeavingMidResponseClosesTheUpstreamConnection() throws Exception {
        CountDownLatch upstreamGone = new CountDownLatch(1);
        CountDownLatch headSent = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nfirst"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    headSent.countDown();
                    // Never finishes the body; waits for the proxy to hang up.
                    if (Channels.newInputStream(s).read() == -1) {
                        upstreamGone.countDown();
                    }
                    return false;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(false, false),
                        1 << 20, 1, true)) {
            RawHttp client = new RawHttp(proxy.port());
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(client.readHead().status()).isEqualTo(200);
            client.close();
            assertThat(upstreamGone.await(3, TimeUnit.SECONDS)).isTrue();
            // The connection was not pooled: a new request opens a new one.
            app.script = TestUpstream.ok("again");
            try (RawHttp next = new RawHttp(proxy.port())) {
                assertThat(next.get("/").text()).isEqualTo("again");
            }
            await().until(() -> app.connections.get() == 2);
        }
    }

    @Test
    void unixSocketUpstreamOnNioEventLoopsIsRefusedAtStart(@TempDir Path dir) {
        UpstreamServerConfig unix = new UpstreamServerConfig(new UpstreamAddress.Unix(dir.resolve("app.sock")), 1, 0,
                Duration.ofSeconds(1), false);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                () -> new ProxiedServer(upstream(List.of(unix)), target(true, true), 1 << 20, 1, false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("upstream app: server unix:")
                .hasMessageContaining("epoll");
    }

    @Test
    void idlePooledConnectionsAreRetiredAfterKeepaliveTimeout() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"))) {
            var u = upstream(List.of(server(app.port())));
            u = new io.portico.config.UpstreamConfig(u.name(), u.servers(), u.balance(), u.hashKey(), u.keepalive(),
                    Duration.ofMillis(200), u.maxConnections(), u.maxQueue(), u.queueTimeout(), u.connectTimeout(),
                    u.sendTimeout(), u.readTimeout(), u.retries(), u.healthCheck(), u.proxyMaxHeaderSize(),
                    u.proxyMaxHeaderCount());
            try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), 1 << 20, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                assertThat(client.get("/").status()).isEqualTo(200);
                await().atMost(Duration.ofSeconds(5)).until(() -> app.closedConnections.get() == 1);
                assertThat(client.get("/").status()).isEqualTo(200);
                assertThat(app.connections.get()).isEqualTo(2);
            }
        }
    }

    @Test
    void namedResponderProxiesWithDefaults(@TempDir Path root) throws Exception {
        // The named responder is what a static location's try-files falls back to: "@app", with the defaults.
        String tryFiles = "path = \"/\", root = \"" + root + "\", try-files = [\"$uri\", \"@app\"]";
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("fallback"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), tryFiles,
                        1 << 20, 1, true, false);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /missing.html HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3\r\nabc\r\n0\r\n\r\n");
            Response r = client.read();
            assertThat(r.text()).isEqualTo("fallback");
            TestUpstream.Request seen = app.requests.peek();
            assertThat(seen.uri()).isEqualTo("/missing.html");
            // Defaults buffer the request: the upstream got a Content-Length body.
            assertThat(seen.header("content-length")).isEqualTo("3");
            assertThat(seen.header("x-forwarded-for")).isEqualTo("127.0.0.1");
            // and a name that is no upstream is refused (at configuration, where the harness refused the lookup)
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ProxiedServer(
                            upstream(List.of(server(app.port()))), tryFiles.replace("@app", "@nope"), 1 << 20, 1,
                            true, false))
                    .hasMessageContaining("'@nope' names no upstream");
        }
    }
}
