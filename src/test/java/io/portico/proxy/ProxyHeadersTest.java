package io.portico.proxy;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.ForwardedHeader;
import io.portico.config.TargetConfig;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the upstream and the client see of each other's headers. */
class ProxyHeadersTest {

    private static TestUpstream.Script echoWithHopByHop() {
        return (req, out, s) -> {
            byte[] b = "body".getBytes(StandardCharsets.US_ASCII);
            out.write(("HTTP/1.1 200 OK\r\nConnection: X-Secret, keep-alive\r\nX-Secret: 1\r\nKeep-Alive: timeout=5\r\n"
                    + "Proxy-Connection: keep-alive\r\nX-App: yes\r\nServer-Timing: db;dur=1\r\nContent-Length: "
                    + b.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(b);
            out.flush();
            return true;
        };
    }

    @Test
    void untrustedPeerForwardingHeadersAreReplacedAndHopByHopRemoved() throws Exception {
        try (TestUpstream app = new TestUpstream(echoWithHopByHop());
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(Optional.empty(), true, Map.of("X-Added", "1", "X-Remove-Me", ""),
                                Map.of("Server-Timing", "", "X-Frame-Options", "DENY")),
                        1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET /h?x=1 HTTP/1.1\r\nHost: front.test\r\nX-Forwarded-For: 6.6.6.6\r\nX-Real-IP: 6.6.6.6\r\n"
                    + "Forwarded: for=6.6.6.6\r\nX-Forwarded-Proto: https\r\nConnection: keep-alive, X-Hop\r\n"
                    + "X-Hop: 1\r\n"
                    + "Keep-Alive: 300\r\nTE: trailers\r\nProxy-Connection: keep-alive\r\nX_Underscore: evil\r\n"
                    + "X-Remove-Me: 1\r\n"
                    + "Upgrade: h2c\r\nX-Kept: yes\r\n\r\n");
            Response r = client.read();
            assertThat(r.status()).isEqualTo(200);
            TestUpstream.Request seen = app.requests.peek();
            assertThat(seen.uri()).isEqualTo("/h?x=1");
            assertThat(seen.header("host")).isEqualTo("front.test");
            assertThat(seen.header("x-forwarded-for")).isEqualTo("127.0.0.1");
            assertThat(seen.header("x-real-ip")).isEqualTo("127.0.0.1");
            assertThat(seen.header("x-forwarded-proto")).isEqualTo("http");
            assertThat(seen.header("x-forwarded-host")).isEqualTo("front.test");
            assertThat(seen.header("forwarded")).isEqualTo("for=127.0.0.1;host=\"front.test\";proto=http");
            assertThat(seen.header("via")).isEqualTo("1.1 portico");
            assertThat(seen.header("x-added")).isEqualTo("1");
            assertThat(seen.header("x-kept")).isEqualTo("yes");
            for (String gone : List.of("connection", "x-hop", "keep-alive", "te", "proxy-connection", "x_underscore",
                    "x-remove-me", "upgrade")) {
                assertThat(seen.headers()).as(gone).doesNotContainKey(gone);
            }
            assertThat(r.header("x-app")).isEqualTo("yes");
            assertThat(r.header("x-secret")).isNull();
            assertThat(r.header("keep-alive")).isNull();
            assertThat(r.header("proxy-connection")).isNull();
            assertThat(r.header("server-timing")).isNull();
            assertThat(r.header("x-frame-options")).isEqualTo("DENY");
            assertThat(r.header("via")).isEqualTo("1.1 portico");
            assertThat(r.text()).isEqualTo("body");
        }
    }

    @Test
    void trustedProxyForwardingHeadersAreExtended() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(true, true), 1 << 20, 1, false, "/", true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET / HTTP/1.1\r\nHost: front.test\r\nX-Forwarded-For: 203.0.113.7\r\n"
                    + "X-Forwarded-Proto: https\r\n"
                    + "X-Forwarded-Host: public.example\r\nForwarded: for=203.0.113.7;proto=https\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            TestUpstream.Request seen = app.requests.peek();
            assertThat(seen.header("x-forwarded-for")).isEqualTo("203.0.113.7, 127.0.0.1");
            assertThat(seen.header("x-forwarded-proto")).isEqualTo("https");
            assertThat(seen.header("x-forwarded-host")).isEqualTo("public.example");
            assertThat(seen.header("forwarded"))
                    .isEqualTo("for=203.0.113.7;proto=https, for=127.0.0.1;host=\"front.test\";proto=http");
        }
    }

    private static TargetConfig.Proxy forwarding(ForwardedHeader... chosen) {
        Set<ForwardedHeader> set = EnumSet.noneOf(ForwardedHeader.class);
        set.addAll(List.of(chosen));
        return new TargetConfig.Proxy("app", Optional.empty(), false, true, true, 1024, 1 << 20, false, set, Map.of(),
                Map.of(), true);
    }

    private static final String SPOOFED = "GET / HTTP/1.1\r\nHost: front.test\r\nX-Forwarded-For: 6.6.6.6\r\n"
            + "X-Real-IP: 6.6.6.6\r\nX-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.test\r\n"
            + "Forwarded: for=6.6.6.6\r\n\r\n";

    @Test
    void onlyTheChosenForwardingHeadersAreSetAndAnUntrustedClientsOthersAreDropped() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        forwarding(ForwardedHeader.X_FORWARDED_FOR), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send(SPOOFED);
            assertThat(client.read().status()).isEqualTo(200);
            TestUpstream.Request seen = app.requests.peek();
            assertThat(seen.header("x-forwarded-for")).isEqualTo("127.0.0.1");
            for (String gone : List.of("x-real-ip", "x-forwarded-proto", "x-forwarded-host", "forwarded")) {
                assertThat(seen.headers()).as(gone).doesNotContainKey(gone);
            }
        }
    }

    @Test
    void noForwardingHeadersSetPassesATrustedProxysOnAsTheySent() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), forwarding(),
                        1 << 20, 1, true, "/", true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send(SPOOFED);
            assertThat(client.read().status()).isEqualTo(200);
            TestUpstream.Request seen = app.requests.peek();
            assertThat(seen.header("x-forwarded-for")).isEqualTo("6.6.6.6");
            assertThat(seen.header("x-real-ip")).isEqualTo("6.6.6.6");
            assertThat(seen.header("x-forwarded-proto")).isEqualTo("https");
            assertThat(seen.header("x-forwarded-host")).isEqualTo("evil.test");
            assertThat(seen.header("forwarded")).isEqualTo("for=6.6.6.6");
        }
    }

    @Test
    void uriPrefixReplacesTheLocationPrefixAndHostCanComeFromTheUpstream() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"))) {
            var target = new TargetConfig.Proxy("app", Optional.of("/v2/"), true, true, true, 1024, 1 << 20, false,
                    ForwardedHeader.ALL, Map.of(), Map.of(), true);
            var u = upstream(List.of(server(app.port())));
            try (ProxiedServer proxy = new ProxiedServer(u, target, 1 << 20, 1, true, "/api/", false);
                    RawHttp client = new RawHttp(proxy.port())) {
                assertThat(client.get("/api/users?id=3").status()).isEqualTo(200);
                TestUpstream.Request seen = app.requests.peek();
                assertThat(seen.uri()).isEqualTo("/v2/users?id=3");
                assertThat(seen.header("host")).isEqualTo("127.0.0.1:" + app.port());
            }
        }
    }

    @Test
    void chunkedUpstreamResponseIsReframedForTheClient() throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(false, false), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            Response r = client.get("/");
            assertThat(r.text()).isEqualTo("hello world");
            assertThat(r.header("transfer-encoding")).isEqualTo("chunked");
            assertThat(client.get("/").text()).isEqualTo("hello world");
            assertThat(app.connections.get()).isEqualTo(1);
        }
    }

    @Test
    void aChunkedResponseArrivingWholeKeepsItsTrailersAndFraming() throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    // head, body and trailer in one write: relayed to the client as one message
                    out.write(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(false, false), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET / HTTP/1.1\r\nHost: front.test\r\n\r\n");
            Response head = client.readHead();
            assertThat(head.header("transfer-encoding")).isEqualTo("chunked");
            List<String> lines = new java.util.ArrayList<>();
            for (String line; !(line = TestUpstream.line(client.input())).isEmpty() || !lines.contains("0"); ) {
                lines.add(line);
            }
            assertThat(lines).containsExactly("5", "hello", "0", "X-Checksum: abc");
            assertThat(client.get("/").text()).isEqualTo("hello"); // the connection is still in step
        }
    }

    @Test
    void closeDelimitedUpstreamResponseIsChunkedToTheClientAndTheConnectionIsNotPooled() throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    out.write("HTTP/1.0 200 OK\r\n\r\nuntil close".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return false;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(false, false), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            Response r = client.get("/");
            assertThat(r.text()).isEqualTo("until close");
            assertThat(client.get("/").text()).isEqualTo("until close");
            assertThat(app.connections.get()).isEqualTo(2);
        }
    }

    @Test
    void headResponseCarriesTheLengthButNoBodyAndTheConnectionIsReused() throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    out.write(("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                    if (!req.method().equals("HEAD")) {
                        out.write(new byte[1234]);
                    }
                    out.flush();
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        TestConfigs.target(true, true), 1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
            Response head = client.readHead();
            assertThat(head.header("content-length")).isEqualTo("1234");
            assertThat(client.get("/").body()).hasSize(1234);
            assertThat(app.connections.get()).isEqualTo(1);
        }
    }
}
