package io.portico.proxy;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.target;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.config.HealthCheckConfig;
import io.portico.config.UpstreamConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Pool-level behaviour seen through the proxy: maxConnections with its queue, active health checks. */
class ProxyPoolTest {

    @Test
    void requestsBeyondMaxConnectionsQueueThenGet503() throws Exception {
        CountDownLatch[] gate = {new CountDownLatch(1)};
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    if (req.uri().equals("/hold")) {
                        try {
                            gate[0].await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    TestUpstream.respond(out, 200, req.uri());
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withLimit(upstream(List.of(server(app.port()))), 1, 1, Duration.ofMillis(300)),
                        target(true, true), 1 << 20, 2, true);
                RawHttp a = new RawHttp(proxy.port());
                RawHttp b = new RawHttp(proxy.port());
                RawHttp c = new RawHttp(proxy.port())) {
            a.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> app.requests.size() == 1);
            b.send("GET /queued HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> proxy.serverActive(0) == 2);
            // The queue (1) is full: rejected at once.
            assertThat(c.get("/rejected").status()).isEqualTo(503);
            gate[0].countDown();
            assertThat(a.read().text()).isEqualTo("/hold");
            assertThat(b.read().text()).isEqualTo("/queued");
            // A queued request that waits longer than queueTimeout gets 503 too.
            gate[0] = new CountDownLatch(1);
            a.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> app.requests.size() == 3);
            assertThat(b.get("/late").status()).isEqualTo(503);
            gate[0].countDown();
            assertThat(a.read().status()).isEqualTo(200);
            assertThat(app.requests).extracting(TestUpstream.Request::uri).doesNotContain("/rejected", "/late");
        }
    }

    @Test
    void aServerAtMaxConnectionsIsPassedOverInsteadOfQueueing() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        try (TestUpstream heavy = new TestUpstream((req, out, s) -> {
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    TestUpstream.respond(out, 200, "heavy");
                    return true;
                });
                TestUpstream light = new TestUpstream(TestUpstream.ok("light"));
                // Weights 3:1 send the first two requests to the heavy server; a queue of 0 would answer 503.
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withLimit(upstream(List.of(server(heavy.port(), 3), server(light.port(), 1))),
                                1, 0, Duration.ofMillis(300)),
                        target(true, true), 1 << 20, 1, true);
                RawHttp a = new RawHttp(proxy.port());
                RawHttp b = new RawHttp(proxy.port())) {
            a.send("GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> heavy.requests.size() == 1);
            for (int i = 0; i < 3; i++) {
                Response r = b.get("/" + i);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("light");
            }
            gate.countDown();
            assertThat(a.read().text()).isEqualTo("heavy");
            assertThat(heavy.requests).extracting(TestUpstream.Request::uri).containsExactly("/hold");
        } finally {
            gate.countDown();
        }
    }

    @Test
    void serverFailingItsHealthCheckIsSkippedAndReturnsAfterRise() throws Exception {
        AtomicBoolean aHealthy = new AtomicBoolean(false);
        try (TestUpstream a = new TestUpstream((req, out, s) -> {
                    TestUpstream.respond(out, req.uri().equals("/health") && !aHealthy.get() ? 500 : 200, "a");
                    return true;
                });
                TestUpstream b = new TestUpstream(TestUpstream.ok("b"))) {
            UpstreamConfig u = TestConfigs.withHealth(upstream(List.of(server(a.port()), server(b.port()))),
                    new HealthCheckConfig("/health", Duration.ofMillis(50), Duration.ofSeconds(1), 2, 1, 200, 399));
            try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), 1 << 20, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                // max-fails = 0: up in the metrics is up by the health check
                await().until(() -> !proxy.serverUp(0));
                for (int i = 0; i < 6; i++) {
                    assertThat(client.get("/x").text()).isEqualTo("b");
                }
                assertThat(a.requests).allSatisfy(r -> assertThat(r.uri()).isEqualTo("/health"));
                assertThat(b.requests.stream().filter(r -> r.uri().equals("/health"))).isNotEmpty();
                aHealthy.set(true);
                await().until(() -> proxy.serverUp(0));
                List<String> bodies = new java.util.ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    bodies.add(client.get("/x").text());
                }
                assertThat(bodies).contains("a", "b");
            }
        }
    }

    @Test
    void aServerOverMaxFailsIsSkippedUntilFailTimeoutPasses() throws Exception {
        int dead;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            dead = s.getLocalPort();
        }
        try (TestUpstream good = new TestUpstream(TestUpstream.ok("good"))) {
            var deadServer = new io.portico.config.UpstreamServerConfig(
                    new io.portico.config.UpstreamAddress.Tcp("127.0.0.1",
                            new java.net.InetSocketAddress("127.0.0.1", dead)),
                    1, 1, Duration.ofSeconds(30), false);
            UpstreamConfig u = TestConfigs.withRetries(upstream(List.of(deadServer, server(good.port()))), 1);
            try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), 1 << 20, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                assertThat(client.get("/").text()).isEqualTo("good"); // dead refused, retried on good
                assertThat(proxy.serverUp(0)).isFalse();
                for (int i = 0; i < 4; i++) {
                    assertThat(client.get("/").text()).isEqualTo("good");
                }
                // The first request tried both, and its log line says so, as nginx's $upstream_addr does.
                List<ProxiedServer.Logged> logs = proxy.logs(5);
                assertThat(logs).hasSize(5);
                assertThat(logs.get(0).upstream()).isEqualTo("127.0.0.1:" + dead + ", 127.0.0.1:" + good.port());
                assertThat(logs.subList(1, 5))
                        .allSatisfy(l -> assertThat(l.upstream()).isEqualTo("127.0.0.1:" + good.port()));
            }
        }
    }

    @Test
    void upstreamThatStopsReadingTheRequestIs504AfterSendTimeout() throws Exception {
        try (java.nio.channels.ServerSocketChannel deaf = java.nio.channels.ServerSocketChannel.open()) {
            deaf.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4096);
            deaf.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            int port = ((java.net.InetSocketAddress) deaf.getLocalAddress()).getPort();
            UpstreamConfig base = TestConfigs.withRetries(upstream(List.of(server(port))), 0);
            UpstreamConfig u = new UpstreamConfig(base.name(), base.servers(), base.balance(), base.hashKey(),
                    base.keepalive(), base.keepaliveTimeout(), 0, 0, base.queueTimeout(), base.connectTimeout(),
                    Duration.ofMillis(300), base.readTimeout(), 0, base.healthCheck(), 16 * 1024, 100);
            try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), 64L << 20, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                int size = 24 << 20;
                client.send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: " + size + "\r\n\r\n");
                byte[] chunk = new byte[1 << 20];
                for (int i = 0; i < 24; i++) {
                    client.send(chunk);
                }
                Response r = client.read();
                assertThat(r.status()).isEqualTo(504);
                assertThat(proxy.log().note()).contains("send timed out");
                // And the upstream connection is really closed, though a send to it is stuck on the full buffer
                // (on io_uring the close waited for that send for ever until the sending side was shut).
                await().atMost(Duration.ofSeconds(3))
                        .until(() -> establishedTo(port) == 0);
            }
        }
    }

    /** Established TCP connections of this host whose remote port is {@code port} (Linux's /proc). */
    private static long establishedTo(int port) throws java.io.IOException {
        String remote = String.format(":%04X ", port);
        long n = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                // sl local_address rem_address st ...: state 01 is ESTABLISHED
                if (f.length > 3 && (f[2] + " ").endsWith(remote) && f[3].equals("01")) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void aHealthCheckWithoutAnswerWithinTimeoutCountsAsAFailure() throws Exception {
        try (java.nio.channels.ServerSocketChannel silent = java.nio.channels.ServerSocketChannel.open()) {
            silent.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
            int port = ((java.net.InetSocketAddress) silent.getLocalAddress()).getPort();
            UpstreamConfig u = TestConfigs.withHealth(upstream(List.of(server(port))),
                    new HealthCheckConfig("/health", Duration.ofMillis(50), Duration.ofMillis(100), 1, 2, 200, 299));
            try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), 1 << 20, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                await().until(() -> !proxy.serverUp(0)); // max-fails = 0: down only by the health check
                // The only server is down and there is no backup: 502 at once.
                assertThat(client.get("/").status()).isEqualTo(502);
                assertThat(proxy.log().note()).isEqualTo("upstream_error=\"no live upstreams\"");
            }
        }
    }
}
