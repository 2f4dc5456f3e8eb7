package io.portico.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import static io.portico.proxy.UwsgiProxyTest.environ;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RefusedPort;
import io.portico.testing.TestServers;
import io.portico.testing.TestTransport;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Portico speaking FastCGI to a real PHP-FPM ({@link PhpFpmServer}). */
class FastCgiProxyTest {
    @TempDir
    static Path dir;
    static PhpFpmServer fpm;
    static PorticoServer portico;
    static int port;
    static RefusedPort refused;

    @BeforeAll
    static void start() throws IOException {
        fpm = PhpFpmServer.start(dir);
        refused = new RefusedPort();
        portico = TestServers.start("limits { max-body-size = 8m }\n"
                + "upstreams { php { servers = [\"fastcgi://" + fpm.address() + "\"], retries = 0,"
                + " connect-timeout = 1s, read-timeout = 1s, send-timeout = 1s } }\n"
                + "locations = [\n"
                + " { path = \"/\", proxy = php, fastcgi-root = \"" + fpm.root() + "\","
                + " params = { APP_ENV = \"test\" } },\n"
                + " { path = \"/nowhere/\", proxy = \"fastcgi://127.0.0.1:" + refused.port() + "\" } ]\n");
        port = TestServers.port(portico);
    }

    @AfterAll
    static void stop() throws IOException {
        if (portico != null) {
            portico.stop();
        }
        if (fpm != null) {
            fpm.close();
        }
        if (refused != null) {
            refused.close();
        }
    }

    @Test
    void getWithAQueryCarriesFastcgiParamsAndTheScript() throws IOException {
        Response r = exchange("GET /echo.php?a=1&b=2 HTTP/1.1\r\nHost: example.com\r\nX-Multi: one\r\nX-Multi: two\r\n"
                + "Connection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(environ(r)).containsEntry("REQUEST_METHOD", "GET").containsEntry("QUERY_STRING", "a=1&b=2")
                .containsEntry("SCRIPT_FILENAME", fpm.root() + "/echo.php")
                .containsEntry("SCRIPT_NAME", "/echo.php")
                .containsEntry("DOCUMENT_ROOT", fpm.root().toString())
                .containsEntry("REQUEST_URI", "/echo.php?a=1&b=2")
                .containsEntry("HTTP_X_MULTI", "one, two")
                .containsEntry("SERVER_NAME", "example.com")
                .containsEntry("APP_ENV", "test");
        assertThat(r.all("set-cookie")).containsExactly("a=1", "b=2");
        assertThat(r.all("x-app")).containsExactly("php");
    }

    @Test
    void postBodiesPlainAndChunked() throws IOException {
        Response plain = exchange("POST /echo.php HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 11\r\nConnection: close\r\n\r\nhello world");
        assertThat(plain.status()).isEqualTo(200);
        assertThat(plain.text()).endsWith("\nBODY=hello world");
        assertThat(environ(plain)).containsEntry("CONTENT_LENGTH", "11").containsEntry("CONTENT_TYPE", "text/plain");
        Response chunked = exchange("POST /echo.php HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
        assertThat(chunked.text()).endsWith("\nBODY=hello world");
        String big = "b".repeat(300_000); // more than one 64 KiB STDIN record
        Response large = exchange("PUT /echo.php HTTP/1.1\r\nHost: x\r\nContent-Length: " + big.length()
                + "\r\nConnection: close\r\n\r\n" + big);
        assertThat(large.text()).endsWith("\nBODY=" + big);
    }

    @Test
    void theIndexServesADirectoryAndStatusComesFromTheScript() throws IOException {
        assertThat(exchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").text())
                .isEqualTo("index of /index.php");
        Response missing = exchange("GET /missing.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.text()).isEqualTo("not here");
    }

    @Test
    void aLargeResponseAndHead() throws IOException {
        Response large = exchange("GET /large.php?5000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(large.status()).isEqualTo(200);
        assertThat(large.body()).hasSize(5_000_000);
        Response head = exchange("HEAD /large.php?1000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
    }

    @Test
    void keptAliveConnectionsServeRequestAfterRequest() throws IOException {
        try (RawHttp s = new RawHttp(port)) {
            for (int i = 0; i < 20; i++) {
                Response r = s.send("GET /echo.php?" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(environ(r)).containsEntry("QUERY_STRING", Integer.toString(i));
            }
        }
    }

    @Test
    void stderrGoesToTheErrorLog() throws IOException {
        // a Portico of its own: the error log writes one line a second per server, and other tests' failures
        // would hold this one back
        PorticoServer own = TestServers.start("locations = [ { path = \"/\", proxy = \"fastcgi://" + fpm.address()
                + "\", fastcgi-root = \"" + fpm.root() + "\" } ]\n");
        try (LogCapture errors = new LogCapture("io.portico.upstream")) {
            Response r = UwsgiProxyTest.exchange(TestServers.port(own),
                    "GET /stderr.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertThat(r.text()).isEqualTo("logged");
            assertThat(errors.lines()).anyMatch(l -> l.contains("server fastcgi://" + fpm.address()
                    + ": FastCGI sent in stderr: \"PHP message: oops from php\""));
        } finally {
            own.stop();
        }
    }

    /**
     * PHP-FPM's three children serve one connection each until it closes. Four event loops that each kept their idle
     * connection would hold all three and leave the fourth loop's request waiting for its 504: the default keeps
     * none, and a pool that keeps them must set max-connections, which then counts open connections, so the fourth
     * loop's request has an idle one of another loop closed for it.
     */
    @Test
    void noIdleConnectionHoldsAPhpFpmChildAnotherLoopNeeds() throws IOException {
        try (PhpFpmServer own = PhpFpmServer.start(dir.resolve("children"))) {
            assertThat(statusesFromFourLoops(own, "")).containsExactly(200, 200, 200, 200);
            assertThat(statusesFromFourLoops(own, ", keepalive = 8, max-connections = 3"))
                    .containsExactly(200, 200, 200, 200);
        }
    }

    /** One request on each of four fresh client connections, which the server's four event loops take in turn. */
    private static java.util.List<Integer> statusesFromFourLoops(PhpFpmServer own, String upstreamKeys)
            throws IOException {
        PorticoServer four = TestServers.start("workers = 4\n"
                + "upstreams { php { servers = [\"fastcgi://" + own.address() + "\"], retries = 0,"
                + " read-timeout = 1s" + upstreamKeys + " } }\n"
                + "locations = [ { path = \"/\", proxy = php, fastcgi-root = \"" + own.root() + "\" } ]\n");
        try {
            java.util.List<Integer> statuses = new java.util.ArrayList<>();
            for (int i = 0; i < 4; i++) {
                statuses.add(UwsgiProxyTest.exchange(TestServers.port(four),
                        "GET /echo.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status());
            }
            return statuses;
        } finally {
            four.stop();
        }
    }

    @Test
    void aCrashedWorkerIsA502ASlowOneA504ARefusedAddressA502() throws IOException {
        assertThat(exchange("GET /crash.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(502);
        assertThat(exchange("GET /echo.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(200);
        assertThat(exchange("GET /slow.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(504);
        assertThat(exchange("GET /nowhere/x.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(502);
    }

    @Test
    void healthChecksSpeakFastcgiAndPhpFpmsPingPathAnswersThem() throws IOException {
        String check = " health-check { interval = 100ms, timeout = 1s, rise = 1, fall = 1, path = ";
        PorticoServer p = TestServers.start("upstreams {\n"
                + " sick { servers = [\"fastcgi://" + fpm.address() + "\"]," + check + "\"/no-ping\" } }\n"
                + " well { servers = [\"fastcgi://" + fpm.address() + "\"]," + check + "\"/ping\" } } }\n"
                + "locations = [ { path = \"/sick/\", proxy = sick, fastcgi-root = \"" + fpm.root() + "\" },"
                + " { path = \"/\", proxy = well, fastcgi-root = \"" + fpm.root() + "\" } ]\n");
        try {
            int port = TestServers.port(p);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                    UwsgiProxyTest.exchange(port, "GET /sick/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                            .status() == 502);
            assertThat(UwsgiProxyTest.exchange(port, "GET /index.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .status()).isEqualTo(200);
        } finally {
            p.stop();
        }
    }

    @Test
    void overAUnixSocket(@TempDir Path sockDir) throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestTransport.of(true).hasUnixSockets(),
                "unix socket upstreams need a native transport");
        try (PhpFpmServer overUnix = PhpFpmServer.start(sockDir, true)) {
            PorticoServer p = TestServers.start("locations = [ { path = \"/\", proxy = \"fastcgi://"
                    + overUnix.address() + "\", fastcgi-root = \"" + overUnix.root() + "\" } ]\n");
            try {
                Response r = UwsgiProxyTest.exchange(TestServers.port(p), "POST /echo.php?u HTTP/1.1\r\nHost: x\r\n"
                        + "Content-Length: 3\r\nConnection: close\r\n\r\nabc");
                assertThat(r.status()).isEqualTo(200);
                assertThat(environ(r)).containsEntry("QUERY_STRING", "u");
                assertThat(r.text()).endsWith("BODY=abc");
            } finally {
                p.stop();
            }
        }
    }

    static Response exchange(String request) throws IOException {
        return UwsgiProxyTest.exchange(port, request);
    }
}
