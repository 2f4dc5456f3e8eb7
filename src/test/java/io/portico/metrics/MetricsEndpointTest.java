package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The metrics location and allow / deny lists, through the real server on loopback. */
class MetricsEndpointTest {
    private static final String ZONES = """
            trusted-proxies = ["127.0.0.9/32"]
            upstreams { app { servers = ["127.0.0.1:9"] } }
            rate-limits {
              strict { rate = 1r/m, burst = 1, nodelay = true }
              watch { rate = 1r/m, burst = 0, nodelay = true, dry-run = true }
            }
            limit-conn { perip { max = 5 } }
            """;
    private PorticoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void reportsEachZoneConnectionsAndUpstreamServers() throws IOException {
        server = TestServers.start(ZONES + """
                locations = [
                  { path = "/limited/", return = { status = 200, body = "ok" }, rate-limit = strict, limit-conn = perip }
                  { path = "/watched/", return = { status = 200, body = "ok" }, rate-limit = watch }
                  { exact = "/metrics", metrics = prometheus }
                ]
                """);
        int port = TestServers.port(server);
        assertThat(statuses(port, "/limited/", 3)).containsExactly(200, 200, 429);
        assertThat(statuses(port, "/watched/", 3)).containsExactly(200, 200, 200);

        try (RawHttp idle = new RawHttp(port)) {
            idle.send("GET /watched/ HTTP/1.1\r\nHost: t\r\n\r\n").read(); // one more connection held open
            // The earlier connections are closed by the client; the server may see their end a moment later.
            await().atMost(Duration.ofSeconds(5)).untilAsserted(
                    () -> assertThat(Scrape.of(port, "/metrics").get("portico_connections_open")).isEqualTo(2));
            Scrape scrape = Scrape.of(port, "/metrics");
            assertThat(scrape.response().status()).isEqualTo(200);
            assertThat(scrape.response().header("content-type")).isEqualTo("text/plain; version=0.0.4; charset=utf-8");
            assertThat(scrape.response().text()).contains("# TYPE portico_rate_limit_requests_total counter\n");
            assertThat(scrape.get("portico_connections_open")).isEqualTo(2);
            assertThat(scrape.get("portico_rate_limit_requests_total{zone=\"strict\",result=\"passed\"}")).isEqualTo(2);
            assertThat(scrape.get("portico_rate_limit_requests_total{zone=\"strict\",result=\"rejected\"}"))
                    .isEqualTo(1);
            assertThat(scrape.get("portico_rate_limit_requests_total{zone=\"strict\",result=\"dry_run_rejected\"}"))
                    .isZero();
            assertThat(scrape.get("portico_rate_limit_requests_total{zone=\"watch\",result=\"passed\"}")).isEqualTo(1);
            assertThat(scrape.get("portico_rate_limit_requests_total{zone=\"watch\",result=\"rejected\"}")).isZero();
            assertThat(scrape.get("portico_rate_limit_requests_total{zone=\"watch\",result=\"dry_run_rejected\"}"))
                    .isEqualTo(3);
            assertThat(scrape.get("portico_rate_limit_clients{zone=\"strict\"}")).isEqualTo(1);
            assertThat(scrape.get("portico_rate_limit_evictions_total{zone=\"strict\"}")).isZero();
            assertThat(scrape.get("portico_limit_conn_requests_total{zone=\"perip\",result=\"passed\"}")).isEqualTo(2);
            assertThat(scrape.get("portico_limit_conn_keys{zone=\"perip\"}")).isZero();
            assertThat(scrape.get("portico_upstream_server_up{upstream=\"app\",server=\"127.0.0.1:9\"}")).isEqualTo(1);
            assertThat(scrape.get("portico_upstream_server_active_requests{upstream=\"app\",server=\"127.0.0.1:9\"}"))
                    .isZero();
        }
    }

    @Test
    void answersOnlyGetAndHead() throws IOException {
        server = TestServers.start("locations = [ { exact = \"/metrics\", metrics = prometheus } ]");
        try (RawHttp http = new RawHttp(TestServers.port(server))) {
            Response post = http.send("POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc").read();
            assertThat(post.status()).isEqualTo(405);
            assertThat(post.header("allow")).isEqualTo("GET, HEAD");
            Response head = http.send("HEAD /metrics HTTP/1.1\r\nHost: t\r\n\r\n").read(true);
            assertThat(head.status()).isEqualTo(200);
            Response get = http.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n").read();
            assertThat(get.text()).contains("# HELP portico_connections_open ");
        }
    }

    @Test
    void allowAndDenyDecideByTheRealClientAddress() throws IOException {
        server = TestServers.start(ZONES + """
                locations = [
                  { exact = "/metrics", metrics = prometheus, allow = ["127.0.0.0/8"], deny = ["127.0.0.3/32"] }
                  { exact = "/local", return = { status = 200, body = "ok" }, allow = "127.0.0.1/32" }
                  { exact = "/no-nine", return = { status = 200, body = "ok" }, deny = ["127.0.0.9"] }
                  { exact = "/open", return = { status = 200, body = "ok" } }
                ]
                """);
        int port = TestServers.port(server);
        assertThat(status(port, "127.0.0.1", "/metrics", null)).isEqualTo(200);
        assertThat(status(port, "127.0.0.3", "/metrics", null)).as("deny wins inside allow").isEqualTo(403);
        assertThat(status(port, "127.0.0.2", "/local", null)).as("not in allow").isEqualTo(403);
        assertThat(status(port, "127.0.0.1", "/local", null)).isEqualTo(200);
        assertThat(status(port, "127.0.0.9", "/no-nine", null)).isEqualTo(403);
        assertThat(status(port, "127.0.0.9", "/no-nine", "127.0.0.1")).as("behind a trusted proxy: the client")
                .isEqualTo(200);
        assertThat(status(port, "127.0.0.2", "/local", "127.0.0.1")).as("X-Forwarded-For of an untrusted peer")
                .isEqualTo(403);
        assertThat(status(port, "127.0.0.9", "/open", null)).isEqualTo(200);
    }

    @Test
    void metricsIsATargetOfItsOwn() {
        assertThatThrownBy(() -> TestServers.config(
                "locations = [ { exact = \"/m\", metrics = prometheus, return = 200 } ]", java.nio.file.Path.of(".")))
                .hasMessageContaining("several targets");
        assertThatThrownBy(() -> TestServers.config(
                "locations = [ { exact = \"/m\", metrics = json } ]", java.nio.file.Path.of(".")))
                .hasMessageContaining("'json' (expected: prometheus)");
        assertThatThrownBy(() -> TestServers.config(
                "locations = [ { exact = \"/m\", metrics = prometheus, allow = [\"10.0.0.0/33\"] } ]",
                java.nio.file.Path.of(".")))
                .hasMessageContaining("allow");
    }

    private static List<Integer> statuses(int port, String path, int n) throws IOException {
        List<Integer> out = new ArrayList<>();
        try (RawHttp http = new RawHttp(port)) {
            for (int i = 0; i < n; i++) {
                out.add(http.send("GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n").read().status());
            }
        }
        return out;
    }

    /** One request from source address {@code from}, with X-Forwarded-For when {@code forwardedFor} is set. */
    private static int status(int port, String from, String path, String forwardedFor) throws IOException {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.bind(new java.net.InetSocketAddress(from, 0));
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(5000);
            String xff = forwardedFor == null ? "" : "X-Forwarded-For: " + forwardedFor + "\r\n";
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: t\r\n" + xff
                    + "Connection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            String head = new String(socket.getInputStream().readNBytes(12),
                    java.nio.charset.StandardCharsets.ISO_8859_1);
            return Integer.parseInt(head.substring(9, 12));
        }
    }
}
