package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.config.PorticoConfig;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server core on real loopback sockets: routing, keep-alive, pipelining, error pages, limits. */
class ServerCoreTest {
    private static final String LOCATIONS = """
            limits { max-body-size = 100, keepalive-requests = 3, client-header-timeout = 300ms }
            locations = [
              { exact = "/health", return = { status = 200, body = "ok" } }
              { path = "/old/", return = { status = 301, location = "https://example.com/new/" } }
              { regex = "\\\\.php$", return = 403 }
              { path = "/a/", return = { status = 200, body = "prefix a" } }
              { path = "/a/b/", return = { status = 200, body = "prefix a/b" } }
            ]
            """;

    PorticoServer server;
    int port;

    @BeforeEach
    void start() {
        server = TestServers.start(LOCATIONS);
        port = TestServers.port(server);
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    private Response get(String path) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            return c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
        }
    }

    @Test
    void routesByExactThenRegexThenLongestPrefix() throws Exception {
        assertThat(get("/health").text()).isEqualTo("ok");
        assertThat(get("/a/x").text()).isEqualTo("prefix a");
        assertThat(get("/a/b/x").text()).isEqualTo("prefix a/b");
        assertThat(get("/a/b/x.php").status()).isEqualTo(403);
        Response redirect = get("/old/page");
        assertThat(redirect.status()).isEqualTo(301);
        assertThat(redirect.header("location")).isEqualTo("https://example.com/new/");
    }

    @Test
    void unmatchedPathIs404WithServerAndDateHeaders() throws Exception {
        Response r = get("/nowhere");
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.header("server")).isEqualTo("portico");
        assertThat(r.header("date")).endsWith("GMT");
        assertThat(r.text()).contains("404 Not Found");
    }

    @Test
    void errorPageIsPlainTextWhenTheClientPrefersIt() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET /nowhere HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n").read();
            assertThat(r.header("content-type")).startsWith("text/plain");
            assertThat(r.text()).isEqualTo("404 Not Found\n");
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrderOnOneConnection() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET /a/ HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /a/b/ HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("prefix a");
            assertThat(c.read().text()).isEqualTo("ok");
            Response third = c.read();
            assertThat(third.text()).isEqualTo("prefix a/b");
            // keepalive-requests = 3: the third response closes the connection.
            assertThat(third.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void http10ClosesUnlessItAsksForKeepAlive() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET /health HTTP/1.0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").read();
            assertThat(r.header("connection")).isEqualTo("keep-alive");
            assertThat(c.send("GET /health HTTP/1.0\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    @Test
    void headGetsTheHeadersWithoutTheBody() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n").read(true);
            assertThat(r.header("content-length")).isEqualTo("2");
            // The next response must start right away: no body bytes were sent for HEAD.
            assertThat(c.send("GET /a/ HTTP/1.1\r\nHost: x\r\n\r\n").read().text()).isEqualTo("prefix a");
        }
    }

    @Test
    void aDeclaredBodyOverTheLimitIs413BeforeReadingIt() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("POST /a/ HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void aChunkedBodyGrowingOverTheLimitIs413() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            String chunk = "x".repeat(60);
            Response r = c.send("POST /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "3c\r\n" + chunk + "\r\n3c\r\n" + chunk + "\r\n0\r\n\r\n").read();
            // The return location answers at once; the body is still counted and released.
            assertThat(r.status()).isEqualTo(200);
        }
    }

    @Test
    void aLocationThatAnswersWithoutTheBodyDoesNotAskForIt() throws Exception {
        // RFC 9110 10.1.1: a server may skip the 100 and send its final status; the body the client may still
        // send cannot be told from a next request, so the connection closes (MessageRulesTest).
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST /a/ HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
            Response r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isEqualTo("prefix a");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void anUnknownExpectationIs417() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("GET /a/ HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n").read().status()).isEqualTo(417);
        }
    }

    @Test
    void aSlowRequestHeadGets408AndIsClosed() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET /health HTTP/1.1\r\nHo");
            Response r = c.read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void aSlowHeadOnAKeptAliveConnectionGets408Too() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long start = System.nanoTime();
            c.send("GET /health HTTP/1.1\r\nHo");
            Response r = c.read();
            assertThat(r.status()).isEqualTo(408);
            assertThat(c.closedByServer()).isTrue();
            // The header timeout (300 ms here), not the keep-alive one (75 s), that the idle connection had.
            assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L);
        }
    }

    @Test
    void aPortInUseIsOneClearError() {
        PorticoConfig clash = TestServers.config(
                "listen = [\"127.0.0.1:" + port + "\"]\nlocations = [{ path = \"/\", return = 204 }]", Path.of("."));
        assertThatThrownBy(() -> PorticoServer.start(clash))
                .isInstanceOf(ListenException.class)
                .hasMessage("cannot listen on 127.0.0.1:" + port + ": address already in use");
    }

    @Test
    void stopClosesIdleKeepAliveConnectionsWithoutWaitingForTheTimeout() throws Exception {
        server.stop();
        server = TestServers.start(LOCATIONS + "\nshutdown-timeout = 60s");
        try (RawHttp c = new RawHttp(TestServers.port(server))) {
            assertThat(c.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long start = System.nanoTime();
            server.stop();
            assertThat(c.closedByServer()).isTrue();
            // Far below the 60 s timeout: an idle connection has nothing in flight to wait for.
            assertThat(System.nanoTime() - start).isLessThan(30_000_000_000L);
        }
    }
}
