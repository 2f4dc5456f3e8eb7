package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one early-rejection path (server.Refusal), for each stage that refuses: the page goes out on the head, the
 * body the client sends afterwards is drained (released where it arrives, the leak detector watching) and the
 * connection serves the next request; a refusal whose framing is in doubt closes instead.
 */
class RefusalTest {
    private static PorticoServer server;
    private static int port;

    @BeforeAll
    static void start() {
        server = TestServers.start(ProxiedPortico.LIMITS
                + "rate-limits { once { rate = 1r/m, burst = 0, nodelay = true } }\n"
                + "locations = [ { path = \"/ok/\", return = { status = 200, body = \"ok\" } },"
                + " { path = \"/denied/\", return = { status = 200, body = \"no\" }, deny = [\"0.0.0.0/0\"] },"
                + " { path = \"/once/\", return = { status = 200, body = \"once\" }, rate-limit = once },"
                + " { path = \"/small/\", return = { status = 200, body = \"small\" }, max-body-size = 4 } ]\n");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "/nowhere/x, 404", // routing
        "/denied/x, 403", // the location's access rules
        "/once/x, 429", // a rate limit (its first request passes, below)
    })
    void aRefusalOnTheHeadDrainsTheBodyThatFollowsAndKeepsTheConnection(String path, int status) throws Exception {
        if (status == 429) {
            try (RawHttp first = new RawHttp(port)) {
                assertThat(first.send("GET /once/x HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            }
        }
        try (RawHttp c = new RawHttp(port)) {
            Response refused = c.send("POST " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                    .read();
            assertThat(refused.status()).isEqualTo(status);
            assertThat(refused.header("connection")).isNull();
            // the body after the refusal, then the next request on the same connection
            c.send("5\r\nhello\r\n5\r\nworld\r\n0\r\n\r\nGET /ok/ HTTP/1.1\r\nHost: x\r\n\r\n");
            Response next = c.read();
            assertThat(next.status()).as("the request after the drained body").isEqualTo(200);
            assertThat(next.text()).isEqualTo("ok");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "'POST /small/ HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n', 413", // over the location's limit
        "'POST /ok/ HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: nothing\r\n\r\n', 417",
        "'GET /../x HTTP/1.1\r\nHost: x\r\n\r\n', 400", // a path above the root
        "'POST /ok/ HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n', 400", // framing, before routing
    })
    void aRefusalWhoseFramingIsInDoubtClosesAfterThePage(String request, int status) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response refused = c.send(request).read();
            assertThat(refused.status()).isEqualTo(status);
            assertThat(refused.header("connection")).isEqualToIgnoringCase("close");
            assertThat(c.closedByServer()).isTrue();
        }
    }
}
