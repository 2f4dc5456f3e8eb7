package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Requests refused before routing (the framing checks, a head that does not arrive in time) never reach the stage
 * that counts answered requests: they are counted where they are refused, under location "".
 */
class RefusedBelowRoutingTest {
    private PorticoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    /** Requests of location "" answered {@code code}, whatever their method (a head Netty could not parse is GET). */
    private static double count(Scrape s, int code) {
        return s.samples().entrySet().stream()
                .filter(e -> e.getKey().startsWith(
                        "portico_http_requests_total{code=\"" + code + "\",host=\"\",location=\"\","))
                .mapToDouble(java.util.Map.Entry::getValue).sum();
    }

    @Test
    void framingRefusalsAndHeadTimeoutsAreCountedUnderTheEmptyLocation() throws IOException {
        server = TestServers.start("limits { client-header-timeout = 200ms, max-header-count = 5 }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus } ]");
        int port = TestServers.port(server);
        Scrape before = Scrape.of(port, "/metrics");
        try (RawHttp c = new RawHttp(port)) { // two Content-Length values: 400 and close
            assertThat(c.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
                    .read().status()).isEqualTo(400);
        }
        try (RawHttp c = new RawHttp(port)) { // more header fields than max-header-count: 431
            c.send("GET /x HTTP/1.1\r\nHost: t\r\nA: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(431);
        }
        try (RawHttp c = new RawHttp(port)) { // half a head, then nothing: 408
            assertThat(c.send("GET /x HTTP/1.1\r\nHo").read().status()).isEqualTo(408);
        }
        Scrape after = Scrape.of(port, "/metrics");
        assertThat(count(after, 400) - count(before, 400)).as("400s in %s", after.samples()).isEqualTo(1.0);
        assertThat(count(after, 431) - count(before, 431)).isEqualTo(1.0);
        assertThat(count(after, 408) - count(before, 408)).isEqualTo(1.0);
    }
}
