package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.RefusedPort;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code status = page} and {@code health = true}, through the real server on loopback. */
class StatusPageTest {
    private PorticoServer server;
    private RefusedPort refused;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.stop();
        }
        if (refused != null) {
            refused.close();
        }
    }

    private int start(String extra) {
        refused = new RefusedPort();
        server = TestServers.start(extra + """
                upstreams { app { servers = ["127.0.0.1:%d", "127.0.0.1:9"] } }
                rate-limits { strict { rate = 1r/m, burst = 0, nodelay = true } }
                locations = [
                  { path = "/app/", proxy = app }
                  { path = "/limited/", return = { status = 200, body = "ok" }, rate-limit = strict }
                  { exact = "/status", status = page }
                  { exact = "/open-status", status = page, allow = ["0.0.0.0/0"] }
                  { exact = "/health", health = true }
                  { path = "/", return = { status = 200, body = "served" } }
                ]
                """.formatted(refused.port()));
        return TestServers.port(server);
    }

    @Test
    void htmlAndJsonShowConnectionsRequestsUpstreamsAndZones() throws IOException {
        int port = start("");
        try (RawHttp http = new RawHttp(port)) {
            http.send("GET /limited/ HTTP/1.1\r\nHost: t\r\n\r\n").read();
            assertThat(http.send("GET /limited/ HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(429);
            assertThat(http.send("GET /app/ HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(502);

            Response html = http.send("GET /status HTTP/1.1\r\nHost: t\r\n\r\n").read();
            assertThat(html.status()).isEqualTo(200);
            assertThat(html.header("content-type")).isEqualTo("text/html; charset=utf-8");
            assertThat(html.text()).contains("<h1>Portico status</h1>", "<h2>Connections</h2>",
                    "127.0.0.1:" + refused.port(), "<td>strict</td>");

            Response json = http.send("GET /status?format=json HTTP/1.1\r\nHost: t\r\n\r\n").read();
            assertThat(json.header("content-type")).isEqualTo("application/json");
            String j = json.text();
            assertThat(j).startsWith("{\"uptime_seconds\":").contains("\"draining\":false")
                    .contains("\"open\":1").contains("\"writing\":1")
                    .contains("\"requests\":{\"total\":4,")
                    .contains("{\"server\":\"127.0.0.1:" + refused.port() + "\",\"up\":")
                    .containsPattern("\"server\":\"127.0.0.1:" + refused.port() + "\",\"up\":(true|false),"
                            + "\"backup\":false,\"active\":0,\"failures\":[1-9]")
                    .contains("\"strict\":{\"kind\":\"rate-limit\",\"clients\":1,\"passed\":1,\"rejected\":1,");
            Response accept = http.send("GET /status HTTP/1.1\r\nHost: t\r\nAccept: application/json\r\n\r\n").read();
            assertThat(accept.text()).startsWith("{\"uptime_seconds\":");
            Response post = http.send("POST /status HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n").read();
            assertThat(post.status()).isEqualTo(405);
        }
    }

    @Test
    void statusIsLoopbackOnlyUnlessAllowSaysOtherwise() throws IOException {
        server = TestServers.start("listen = [\"0.0.0.0:0\"]\n"
                + "locations = [ { exact = \"/status\", status = page },"
                + " { exact = \"/open-status\", status = page, allow = [\"0.0.0.0/0\"] } ]");
        int port = TestServers.port(server);
        String outside = java.net.NetworkInterface.networkInterfaces()
                .flatMap(java.net.NetworkInterface::inetAddresses)
                .filter(a -> a instanceof java.net.Inet4Address && !a.isLoopbackAddress())
                .map(java.net.InetAddress::getHostAddress).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(outside != null, "no non-loopback IPv4 address here");
        assertThat(status(outside, port, "/status")).isEqualTo(403);
        assertThat(status(outside, port, "/open-status")).isEqualTo(200);
        assertThat(status("127.0.0.1", port, "/status")).isEqualTo(200);
    }

    @Test
    void healthAnswers503WhileDrainingAndTheRestIsStillServed() throws Exception {
        int port = start("drain-delay = 3s\n");
        try (RawHttp http = new RawHttp(port)) {
            Response ok = http.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n").read();
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.text()).isEqualTo("ok\n");
        }
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::stop);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(2)).untilAsserted(
                () -> assertThat(status("127.0.0.1", port, "/health")).isEqualTo(503));
        assertThat(status("127.0.0.1", port, "/")).as("still served during drain-delay").isEqualTo(200);
        stopping.get();
        server = null;
    }

    @Test
    void statusAndHealthValuesAreChecked() {
        assertThatThrownBy(() -> TestServers.config("locations = [ { exact = \"/s\", status = html } ]", Path.of(".")))
                .hasMessageContaining("'html' (expected: page)");
        assertThatThrownBy(() -> TestServers.config("locations = [ { exact = \"/h\", health = false } ]", Path.of(".")))
                .hasMessageContaining("health: false (expected: true");
        assertThatThrownBy(() -> TestServers.config("locations = [ { exact = \"/h\", health = true, return = 200 } ]",
                Path.of("."))).hasMessageContaining("several targets");
    }

    /** The status of one GET on a new connection to {@code host} (loopback, or another address of this machine). */
    private static int status(String host, int port, String path) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(host, port), 2000);
        try (RawHttp c = new RawHttp(socket)) {
            c.setTimeout(5000);
            return c.send("GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").read().status();
        }
    }
}
