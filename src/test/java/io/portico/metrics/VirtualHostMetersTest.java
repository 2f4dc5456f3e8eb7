package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two virtual hosts with the same location spelling ({@code /}) are two series: a request counts under the host
 * that answered it, labelled by the host's first name, and the top-level locations under {@code host=""}. Before,
 * meters were keyed by the location's spelling alone, so every host's {@code /} added to one counter.
 */
class VirtualHostMetersTest {
    private PorticoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void eachHostsLocationsHaveTheirOwnSeries() throws IOException {
        server = TestServers.start("""
                locations = [
                  { exact = "/metrics", metrics = prometheus }
                  { path = "/", return = { status = 200, body = "default" } }
                ]
                hosts = [
                  { names = ["a.test", "www.a.test"], locations = [ { path = "/", return = { status = 200, body = "a" } } ] }
                  { names = ["b.test"], locations = [ { path = "/", return = { status = 204 } } ] }
                ]
                """);
        int port = TestServers.port(server);
        Scrape before = Scrape.of(port, "/metrics");
        try (RawHttp http = new RawHttp(port)) {
            assertThat(http.send("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").read().text()).isEqualTo("a");
            assertThat(http.send("GET /x HTTP/1.1\r\nHost: www.a.test\r\n\r\n").read().text()).isEqualTo("a");
            assertThat(http.send("GET / HTTP/1.1\r\nHost: b.test\r\n\r\n").read().status()).isEqualTo(204);
            assertThat(http.send("GET / HTTP/1.1\r\nHost: other.test\r\n\r\n").read().text()).isEqualTo("default");
        }
        Scrape after = Scrape.of(port, "/metrics");
        assertThat(moved(before, after, "host=\"a.test\"", "200")).as("both of a.test's names").isEqualTo(2);
        assertThat(moved(before, after, "host=\"b.test\"", "204")).isEqualTo(1);
        assertThat(moved(before, after, "host=\"\"", "200")).as("the default host's /").isEqualTo(1);
        assertThat(moved(before, after, "host=\"b.test\"", "200")).isZero();
        assertThat(after.value("portico_http_request_duration_seconds_count{host=\"a.test\",location=\"/\"}"))
                .isEqualTo(2);
    }

    private static double moved(Scrape before, Scrape after, String host, String code) {
        String sample = "portico_http_requests_total{code=\"" + code + "\"," + host + ",location=\"/\",method=\"GET\"}";
        return after.valueOrZero(sample) - before.valueOrZero(sample);
    }
}
