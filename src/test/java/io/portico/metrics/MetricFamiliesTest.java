package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.RefusedPort;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every metric family, through the real server on loopback: a scrape before and after the event that should move
 * it, parsed as Prometheus text (a line that is not a sample fails the parse).
 */
class MetricFamiliesTest {
    private static final String BODY = "x".repeat(1024);

    @TempDir
    Path dir;
    private PorticoServer server;
    private HttpServer app;
    private RefusedPort refused;
    private TestCertificates.Issued cert;
    private int port;
    private int tlsPort;

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(dir.resolve("www"));
        Files.writeString(dir.resolve("www/a.txt"), BODY);
        cert = TestCertificates.issue(dir, "m", List.of("m.test"));
        app = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 16);
        app.createContext("/", exchange -> {
            byte[] in = exchange.getRequestBody().readAllBytes();
            byte[] out = ("app " + in.length).getBytes(StandardCharsets.US_ASCII);
            exchange.sendResponseHeaders(200, out.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(out);
            }
        });
        app.start();
        refused = new RefusedPort();
        String good = "127.0.0.1:" + app.getAddress().getPort();
        String dead = "127.0.0.1:" + refused.port();
        server = TestServers.start("""
                listen = ["127.0.0.1:0", { address = "127.0.0.1:0", tls { certificates = [
                  { cert = "%s", key = "%s" } ] } }]
                upstreams {
                  app { servers = ["%s"] }
                  dead { servers = ["%s"] }
                  pair { servers = ["%s", "%s"], balance = round-robin }
                }
                locations = [
                  { path = "/files/", alias = "%s/" }
                  { path = "/app/", proxy = app }
                  { path = "/dead/", proxy = dead }
                  { path = "/pair/", proxy = pair }
                  { exact = "/metrics", metrics = prometheus }
                ]
                """.formatted(cert.cert(), cert.key(), good, dead, dead, good, dir.resolve("www")));
        port = server.localAddresses().get(0).getPort();
        tlsPort = server.localAddresses().get(1).getPort();
    }

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.stop();
        }
        app.stop(0);
        refused.close();
    }

    @Test
    void requestsDurationsAndBytesByLocationMethodAndCode() throws IOException {
        Scrape before = scrape();
        try (RawHttp http = new RawHttp(port)) {
            assertThat(http.send("GET /files/a.txt HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(http.send("GET /files/a.txt HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(http.send("GET /files/none HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(404);
            assertThat(http.send("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(404);
            assertThat(http.send("POST /app/ HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello").read().text())
                    .isEqualTo("app 5");
            assertThat(http.send("BREW /app/ HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(200);
        }
        Scrape after = scrape();
        assertThat(moved(before, after, "portico_http_requests_total{host=\"\",location=\"/files/\",method=\"GET\",code=\"200\"}"))
                .isEqualTo(2);
        assertThat(moved(before, after, "portico_http_requests_total{host=\"\",location=\"/files/\",method=\"GET\",code=\"404\"}"))
                .isEqualTo(1);
        assertThat(moved(before, after, "portico_http_requests_total{host=\"\",location=\"\",method=\"GET\",code=\"404\"}"))
                .as("no location took it").isEqualTo(1);
        assertThat(moved(before, after, "portico_http_requests_total{host=\"\",location=\"/app/\",method=\"POST\",code=\"200\"}"))
                .isEqualTo(1);
        assertThat(moved(before, after, "portico_http_requests_total{host=\"\",location=\"/app/\",method=\"OTHER\",code=\"200\"}"))
                .as("an unknown method is OTHER").isEqualTo(1);
        assertThat(moved(before, after, "portico_http_request_duration_seconds_count{host=\"\",location=\"/files/\"}"))
                .isEqualTo(3);
        assertThat(moved(before, after,
                "portico_http_request_duration_seconds_bucket{host=\"\",location=\"/files/\",le=\"+Inf\"}")).isEqualTo(3);
        assertThat(moved(before, after, "portico_http_request_duration_seconds_sum{host=\"\",location=\"/files/\"}"))
                .isPositive();
        assertThat(moved(before, after, "portico_http_sent_bytes_total{host=\"\",location=\"/files/\"}"))
                .isGreaterThanOrEqualTo(2 * BODY.length());
        assertThat(moved(before, after, "portico_http_received_bytes_total{host=\"\",location=\"/app/\"}")).isEqualTo(5);
        assertThat(moved(before, after, "portico_static_cache_hits_total")).isGreaterThanOrEqualTo(1);
        assertThat(moved(before, after, "portico_static_cache_misses_total")).isGreaterThanOrEqualTo(1);
        assertThat(moved(before, after, "portico_static_cache_hit_bytes_total")).isGreaterThanOrEqualTo(BODY.length());
        assertThat(after.value("portico_static_cache_bytes")).isGreaterThanOrEqualTo(BODY.length());
    }

    @Test
    void upstreamTriesFailuresRetriesAndTimes() throws IOException {
        String app = "upstream=\"app\",server=\"127.0.0.1:" + this.app.getAddress().getPort() + "\"";
        String dead = "server=\"127.0.0.1:" + refused.port() + "\"";
        Scrape before = scrape();
        try (RawHttp http = new RawHttp(port)) {
            assertThat(http.send("GET /app/ HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(http.send("GET /dead/ HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(502);
            for (int i = 0; i < 4; i++) { // round robin: the refused server comes first at least once
                assertThat(http.send("GET /pair/ HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(200);
            }
        }
        Scrape after = scrape();
        assertThat(moved(before, after, "portico_upstream_requests_total{" + app + "}")).isEqualTo(1);
        assertThat(moved(before, after, "portico_upstream_connect_duration_seconds_count{" + app + "}")).isEqualTo(1);
        assertThat(moved(before, after, "portico_upstream_response_duration_seconds_count{" + app + "}"))
                .isEqualTo(1);
        assertThat(moved(before, after,
                "portico_upstream_failures_total{upstream=\"dead\"," + dead + ",cause=\"connect_error\"}"))
                .isGreaterThanOrEqualTo(1);
        assertThat(moved(before, after,
                "portico_upstream_retries_total{upstream=\"pair\"," + dead + ",cause=\"connect_error\"}"))
                .isGreaterThanOrEqualTo(1);
        assertThat(after.valueOrZero(
                "portico_upstream_retries_total{upstream=\"dead\"," + dead + ",cause=\"connect_error\"}"))
                .as("a pool with no other server to try retries nothing").isZero();
        assertThat(after.value("portico_upstream_server_up{upstream=\"app\"," + app.substring(app.indexOf("server"))
                + "}")).isEqualTo(1);
    }

    @Test
    void connectionsByState() throws Exception {
        Scrape before = scrape();
        try (RawHttp idle = new RawHttp(port); RawHttp partial = new RawHttp(port)) {
            idle.send("GET /files/a.txt HTTP/1.1\r\nHost: t\r\n\r\n").read(); // then waits, kept alive
            partial.send("GET /files/a.txt HTTP/1.1\r\nHo"); // a head begun
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                Scrape s = scrape();
                assertThat(s.value("portico_connections{state=\"reading\"}")).isEqualTo(1);
                assertThat(s.value("portico_connections{state=\"writing\"}")).as("the scrape itself").isEqualTo(1);
                assertThat(s.value("portico_connections{state=\"waiting\"}")).isEqualTo(1);
                assertThat(s.value("portico_connections_open")).isEqualTo(3);
            });
        }
        Scrape after = scrape();
        assertThat(moved(before, after, "portico_connections_accepted_total")).isGreaterThanOrEqualTo(3);
        assertThat(after.value("portico_connections_handled_total"))
                .isEqualTo(after.value("portico_connections_accepted_total"));
    }

    @Test
    void tlsHandshakesAndFailures() throws Exception {
        Scrape before = scrape();
        SSLContext ctx = TestCertificates.trusting(cert);
        try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", tlsPort)) {
            s.setSoTimeout(5000);
            s.startHandshake();
        }
        try (Socket garbage = new Socket("127.0.0.1", tlsPort)) {
            garbage.setSoTimeout(5000);
            garbage.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5});
            garbage.getInputStream().read(); // until the server closes it
        } catch (IOException expected) {
            // a reset is a close too
        }
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Scrape after = scrape();
            assertThat(moved(before, after, "portico_tls_handshakes_total")).isEqualTo(1);
            assertThat(moved(before, after, "portico_tls_handshake_failures_total")).isGreaterThanOrEqualTo(1);
        });
    }

    @Test
    void jvmProcessAndBuildFamilies() {
        Scrape s = scrape();
        assertThat(s.value("jvm_memory_used_bytes{area=\"heap\"}")).isPositive();
        assertThat(s.samples().keySet()).anyMatch(k -> k.startsWith("jvm_buffer_pool_used_bytes{pool=\"direct\"}"));
        assertThat(s.samples().keySet()).anyMatch(k -> k.startsWith("jvm_gc_collection_seconds_count{"));
        assertThat(s.value("jvm_threads_current")).isPositive();
        assertThat(s.value("process_cpu_seconds_total")).isPositive();
        assertThat(s.value("process_open_fds")).isPositive();
        assertThat(s.samples().entrySet()).anyMatch(e -> e.getKey().startsWith("portico_build_info{")
                && e.getKey().contains("version=\"") && e.getValue() == 1.0);
        assertThat(s.response().text()).contains("# TYPE portico_http_request_duration_seconds histogram\n");
    }

    private Scrape scrape() {
        return Scrape.of(port, "/metrics");
    }

    private static double moved(Scrape before, Scrape after, String sample) {
        return after.value(sample) - before.valueOrZero(sample);
    }
}
