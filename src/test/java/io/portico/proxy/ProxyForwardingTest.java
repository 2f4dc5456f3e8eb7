package io.portico.proxy;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.RefusedPort;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.target;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.config.UpstreamConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The core path: forwarding, keep-alive reuse, the idle-close race, and failures mapped to 502/504. */
class ProxyForwardingTest {

    static Stream<Arguments> loops() {
        return Stream.of(Arguments.of(1, true), Arguments.of(3, false));
    }

    private static final RefusedPort REFUSED = new RefusedPort();

    private static int closedPort() {
        return REFUSED.port();
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void reusesOneUpstreamConnectionForManyRequests(int loops, boolean epoll) throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    TestUpstream.respond(out, 200, "hello " + req.uri());
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            for (int i = 0; i < 20; i++) {
                Response r = client.get("/p/" + i + "?q=1");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("hello /p/" + i + "?q=1");
            }
            assertThat(app.connections.get()).isEqualTo(1);
            assertThat(app.requests).hasSize(20);
            assertThat(proxy.logs(20)).hasSize(20)
                    .allSatisfy(l -> assertThat(l.upstream()).isEqualTo("127.0.0.1:" + app.port()))
                    // the access log's urt= has nginx's millisecond resolution: a time was recorded
                    .allSatisfy(l -> assertThat(l.upstreamNanos()).isNotNegative());
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void connectionRefusedIs502(int loops, boolean epoll) throws Exception {
        UpstreamConfig u = TestConfigs.withRetries(upstream(List.of(server(closedPort()))), 0);
        try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/").status()).isEqualTo(502);
            assertThat(proxy.log().note()).isEqualTo("upstream_error=\"connect refused\"");
            assertThat(proxy.log().upstream()).startsWith("127.0.0.1:");
            // As nginx's $upstream_response_time: the time the failed try took.
            assertThat(proxy.log().upstreamNanos()).isNotNegative();
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void noResponseHeadWithinReadTimeoutIs504(int loops, boolean epoll) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return false;
                });
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withReadTimeout(upstream(List.of(server(app.port()))), Duration.ofMillis(200)),
                        target(true, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/slow").status()).isEqualTo(504);
            assertThat(proxy.log().note()).contains("timed out");
        } finally {
            release.countDown();
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void malformedStatusLineIs502(int loops, boolean epoll) throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    out.write("HTTP/1.1 abc Broken\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(TestConfigs.withRetries(upstream(List.of(server(app.port()))), 0),
                        target(true, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/").status()).isEqualTo(502);
            assertThat(proxy.log().note()).contains("malformed");
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void upstreamHeadTooLargeIs502(int loops, boolean epoll) throws Exception {
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    out.write(("HTTP/1.1 200 OK\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\nContent-Length: 0\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(TestConfigs.withRetries(upstream(List.of(server(app.port()))), 0),
                        target(true, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/").status()).isEqualTo(502);
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void idleConnectionClosedByUpstreamIsNotUsed(int loops, boolean epoll) throws Exception {
        // The upstream answers keep-alive but closes right after, as gunicorn does when its keep-alive expires.
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    TestUpstream.respond(out, 200, "once");
                    return false;
                });
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            for (int i = 0; i < 5; i++) {
                assertThat(client.get("/").status()).isEqualTo(200);
            }
            assertThat(app.connections.get()).isEqualTo(5);
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void reusedConnectionThatDiesBeforeTheResponseIsRetriedFreshForGet(int loops, boolean epoll) throws Exception {
        // The race itself: the upstream reads the second request on a kept-alive connection and closes without
        // answering.
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    if (req.indexOnConnection() > 1) {
                        return false;
                    }
                    TestUpstream.respond(out, 200, "ok");
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(TestConfigs.withRetries(upstream(List.of(server(app.port()))), 0),
                        target(false, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            assertThat(client.get("/a").status()).isEqualTo(200);
            assertThat(client.get("/b").status()).isEqualTo(200);
            assertThat(app.connections.get()).isEqualTo(2);
            // A streamed POST with a body cannot be replayed: the client gets 502, the request is never sent twice.
            client.send("POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            assertThat(client.read().status()).isEqualTo(502);
            assertThat(app.requests.stream().filter(r -> r.uri().equals("/c"))).hasSize(1);
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void getGoesToTheNextServerWhenTheFirstRefuses(int loops, boolean epoll) throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("second"));
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withRetries(upstream(List.of(server(closedPort()), server(app.port()))), 1),
                        target(true, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            for (int i = 0; i < 4; i++) {
                Response r = client.get("/");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("second");
            }
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @MethodSource("loops")
    void postIsNeverRetriedAfterItWasSentButGetIs(int loops, boolean epoll) throws Exception {
        try (TestUpstream dropper = new TestUpstream((req, out, s) -> false);
                TestUpstream good = new TestUpstream(TestUpstream.ok("good"));
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withRetries(upstream(List.of(server(dropper.port()), server(good.port()))), 1),
                        target(true, true), 1 << 20, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            // Round-robin starts at the dropper for the first request.
            client.send("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            assertThat(client.read().status()).isEqualTo(502);
            assertThat(dropper.requests).hasSize(1);
            assertThat(good.requests).isEmpty();
            // The GET that hits the dropper next is retried on the good server.
            Response a = client.get("/g1");
            Response b = client.get("/g2");
            assertThat(List.of(a.status(), b.status())).containsOnly(200);
            await().until(() -> good.requests.size() == 2);
        }
    }

    @org.junit.jupiter.api.Test
    void eachEventLoopKeepsItsOwnPool() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, 3, false)) {
            List<RawHttp> clients = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    clients.add(new RawHttp(proxy.port()));
                }
                for (int round = 0; round < 5; round++) {
                    for (RawHttp c : clients) {
                        assertThat(c.get("/").status()).isEqualTo(200);
                    }
                }
            } finally {
                for (RawHttp c : clients) {
                    c.close();
                }
            }
            // One request at a time: each of the 3 loops needs one upstream connection, never more. The 6
            // connections were handed to the 3 loops in turn (Netty's round-robin chooser), so each loop has 2.
            assertThat(app.connections.get()).isEqualTo(3);
        }
    }
}
