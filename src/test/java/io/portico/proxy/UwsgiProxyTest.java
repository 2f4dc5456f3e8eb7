package io.portico.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RefusedPort;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import io.portico.testing.TestTransport;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Portico speaking uwsgi to a real uWSGI ({@link UwsgiServer}): the variables as nginx's uwsgi_params sets them,
 * bodies (also chunked from the client), large and unframed responses, headers both ways, and the failures a
 * worker can have: a crash (502), a refused address (502), a slow answer (504 at read-timeout).
 */
class UwsgiProxyTest {
    @TempDir
    static Path dir;
    static UwsgiServer uwsgi;
    static PorticoServer portico;
    static int port;
    static int h2cPort;
    static RefusedPort refused;

    @BeforeAll
    static void start() throws IOException {
        uwsgi = UwsgiServer.tcp(dir);
        refused = new RefusedPort();
        portico = TestServers.start("listen = [\"127.0.0.1:0\", { address = \"127.0.0.1:0\", http2 = on }]\n"
                + "limits { max-body-size = 8m }\n"
                + "upstreams { py { servers = [\"uwsgi://" + uwsgi.address() + "\"], retries = 0,"
                + " connect-timeout = 1s, read-timeout = 1s, send-timeout = 1s } }\n"
                + "locations = [\n"
                + " { path = \"/\", proxy = py, params = { APP_ENV = \"test\", FROM_HOST = \"$host$uri\","
                + " SERVER_NAME = \"named.example\" } },\n"
                + " { path = \"/streamed/\", proxy = \"uwsgi://py\", streaming = true },\n"
                + " { path = \"/small/\", proxy = py, max-body-size = 10 },\n"
                + " { path = \"/inline/\", proxy = \"uwsgi://" + uwsgi.address() + "\" },\n"
                + " { path = \"/nowhere/\", proxy = \"uwsgi://127.0.0.1:" + refused.port() + "\" },\n"
                + " { path = \"/metrics\", metrics = prometheus } ]\n");
        port = TestServers.port(portico);
        h2cPort = portico.localAddresses().get(1).getPort();
    }

    @AfterAll
    static void stop() throws IOException {
        if (refused != null) {
            refused.close();
        }
        if (portico != null) {
            portico.stop();
        }
        if (uwsgi != null) {
            uwsgi.close();
        }
    }

    @Test
    void getWithAQueryCarriesNginxsUwsgiParams() throws IOException {
        Response r = exchange("GET /echo/%C3%A9t%C3%A9?a=1&b=%20x HTTP/1.1\r\nHost: Example.COM:8080\r\n"
                + "Content-Type: text/weird\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        Map<String, String> env = environ(r);
        assertThat(env).containsEntry("REQUEST_METHOD", "GET")
                .containsEntry("REQUEST_URI", "/echo/%C3%A9t%C3%A9?a=1&b=%20x")
                .containsEntry("QUERY_STRING", "a=1&b=%20x")
                .containsEntry("SERVER_PROTOCOL", "HTTP/1.1")
                .containsEntry("REQUEST_SCHEME", "http")
                .containsEntry("REMOTE_ADDR", "127.0.0.1")
                .containsEntry("SERVER_PORT", Integer.toString(port))
                .containsEntry("CONTENT_TYPE", "text/weird")
                .containsEntry("CONTENT_LENGTH", "")
                .containsEntry("HTTP_HOST", "Example.COM:8080")
                .containsEntry("APP_ENV", "test")
                .containsEntry("FROM_HOST", "example.com/echo/%C3%A9t%C3%A9")
                .containsEntry("SERVER_NAME", "named.example") // a param replaces the standard variable
                .doesNotContainKey("HTTPS")
                .doesNotContainKey("HTTP_CONNECTION");
        assertThat(env.get("REMOTE_PORT")).matches("[0-9]+");
        // PATH_INFO is decoded (WSGI hands it to the app as latin-1 of the UTF-8 bytes)
        assertThat(env.get("PATH_INFO").getBytes(StandardCharsets.ISO_8859_1))
                .isEqualTo("/echo/été".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void anHttp2ClientIsAnHttp2ClientToTheApp() throws Exception {
        // Netty's stream codec hands the exchange a request that says HTTP/1.1; the app must hear what the client
        // spoke, as nginx's $server_protocol tells it.
        Process curl = new ProcessBuilder("curl", "-sS", "--max-time", "10", "--http2-prior-knowledge",
                "http://127.0.0.1:" + h2cPort + "/echo/h2?x=1").redirectErrorStream(true).start();
        String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(curl.waitFor(15, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("\nSERVER_PROTOCOL=HTTP/2.0\n").contains("\nQUERY_STRING=x=1\n");
    }

    @Test
    void thePathIsTheNormalizedOne() throws IOException {
        Response r = exchange("GET /a/./b//../c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(environ(r)).containsEntry("PATH_INFO", "/a/c").containsEntry("REQUEST_URI", "/a/c");
    }

    @Test
    void headersBothWaysWithRepeatedNamesAndUnderscoresDropped() throws IOException {
        Response r = exchange("GET /h HTTP/1.1\r\nHost: x\r\nX-Multi: one\r\nX-Multi: two\r\nCookie: a=1\r\n"
                + "Cookie: b=2\r\nX_Sneaky: 1\r\nX-Sneaky: real\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(environ(r)).containsEntry("HTTP_X_MULTI", "one, two")
                .containsEntry("HTTP_COOKIE", "a=1; b=2")
                .containsEntry("HTTP_X_SNEAKY", "real"); // the underscore spelling was dropped, not merged in
        assertThat(r.all("set-cookie")).containsExactly("a=1", "b=2");
        assertThat(r.all("x-app")).containsExactly("wsgi");
    }

    @Test
    void postWithABody() throws IOException {
        Response r = exchange("POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: 11\r\nConnection: close\r\n\r\nhello=world");
        assertThat(r.status()).isEqualTo(200);
        assertThat(environ(r)).containsEntry("REQUEST_METHOD", "POST").containsEntry("CONTENT_LENGTH", "11")
                .containsEntry("CONTENT_TYPE", "application/x-www-form-urlencoded");
        assertThat(r.text()).endsWith("\nBODY=hello=world");
    }

    @Test
    void chunkedBodiesAreReadWholeAndSentWithTheirLengthEvenOnAStreamingLocation() throws IOException {
        for (String path : List.of("/chunked", "/streamed/chunked")) {
            Response r = exchange("POST " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    + "Connection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n");
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(environ(r)).as(path).containsEntry("CONTENT_LENGTH", "11")
                    .doesNotContainKey("HTTP_TRANSFER_ENCODING");
            assertThat(r.text()).as(path).endsWith("\nBODY=hello world");
        }
    }

    @Test
    void streamedBodyWithALength() throws IOException {
        String body = "z".repeat(200_000);
        Response r = exchange("PUT /streamed/up HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length()
                + "\r\nConnection: close\r\n\r\n" + body);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).endsWith("\nBODY=" + body);
    }

    @Test
    void largeAndUnframedResponses() throws IOException {
        Response large = exchange("GET /large?5000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(large.status()).isEqualTo(200);
        assertThat(large.header("content-length")).isEqualTo("5000000");
        assertThat(large.body()).hasSize(5_000_000);
        // no Content-Length: uWSGI closes after it, and the client gets it chunked (HTTP/1.0: to the close)
        Response unframed = exchange("GET /unframed HTTP/1.0\r\n\r\n");
        assertThat(unframed.status()).isEqualTo(200);
        assertThat(unframed.body()).hasSize(1_000_000);
    }

    @Test
    void aStreamedLargeResponse() throws IOException {
        Response r = exchange("GET /streamed/large?3000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).hasSize(3_000_000);
    }

    @Test
    void theResponseHeaderCountLimitHoldsAsForHttp() throws IOException {
        // 99 fields and Content-Length are the default 100; one more is a 502
        assertThat(exchange("GET /headers?99 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(200);
        assertThat(exchange("GET /headers?100 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(502);
    }

    @Test
    void bodiesOverTheLocationsLimitAre413EvenChunked() throws IOException {
        assertThat(exchange("POST /small/x HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nConnection: close\r\n\r\n"
                + "hello world").status()).isEqualTo(413);
        assertThat(exchange("POST /small/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: close\r\n\r\n6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n").status()).isEqualTo(413);
        assertThat(exchange("POST /small/x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
                + "hello").text()).endsWith("BODY=hello");
    }

    @Test
    void manyRequestsOnOneClientConnectionEachOnAFreshUwsgiConnection() throws IOException {
        try (RawHttp s = new RawHttp(port)) {
            for (int i = 0; i < 5; i++) {
                Response r = s.send("GET /k?" + i + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(environ(r)).containsEntry("QUERY_STRING", Integer.toString(i));
            }
        }
    }

    @Test
    void headResponseHasNoBody() throws IOException {
        Response r = exchange("HEAD /large?1000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEmpty();
    }

    @Test
    void aStatusUwsgiCannotFrameIsA502() throws IOException {
        // uWSGI writes the app's status as given: "999" is not an HTTP status, refused as from an HTTP upstream
        assertThat(exchange("GET /status?999 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(502);
        assertThat(exchange("GET /status?418 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(418);
    }

    @Test
    void aCrashedWorkerIsA502AndTheNextRequestIsServed() throws IOException {
        assertThat(exchange("GET /crash HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status()).isEqualTo(502);
        assertThat(exchange("GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status()).isEqualTo(200);
    }

    @Test
    void aSlowWorkerIsA504AtReadTimeout() throws IOException {
        long start = System.nanoTime();
        assertThat(exchange("GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status()).isEqualTo(504);
        assertThat((System.nanoTime() - start) / 1_000_000).isBetween(900L, 2900L);
    }

    @Test
    void aRefusedAddressIsA502() throws IOException {
        assertThat(exchange("GET /nowhere/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(502);
    }

    @Test
    void anInlineAddressMakesAnUpstream() throws IOException {
        Response r = exchange("GET /inline/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        assertThat(environ(r)).containsEntry("PATH_INFO", "/inline/x").doesNotContainKey("APP_ENV");
    }

    @Test
    void metricsNameTheProtocol() throws IOException {
        Response r = exchange("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        // labels in the library's order (alphabetical): server before upstream
        assertThat(r.text().lines()).anyMatch(l -> l.contains("server=\"uwsgi://" + uwsgi.address() + "\"")
                && l.contains("upstream=\"py\""));
    }

    @Test
    void unixSocket(@TempDir Path sockDir) throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(TestTransport.of(true).hasUnixSockets(),
                "unix socket upstreams need a native transport");
        try (UwsgiServer overUnix = UwsgiServer.unix(sockDir)) {
            PorticoServer p = TestServers.start("locations = [ { path = \"/\", proxy = \"uwsgi://"
                    + overUnix.address() + "\" } ]\n");
            try {
                Response r = exchange(TestServers.port(p), "POST /u?q HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
                        + "Connection: close\r\n\r\nabc");
                assertThat(r.status()).isEqualTo(200);
                assertThat(environ(r)).containsEntry("PATH_INFO", "/u").containsEntry("QUERY_STRING", "q");
                assertThat(r.text()).endsWith("BODY=abc");
            } finally {
                p.stop();
            }
        }
        // the socket is gone: 502
        PorticoServer p = TestServers.start("locations = [ { path = \"/\", proxy = \"uwsgi://unix:"
                + sockDir.resolve("gone.sock") + "\" } ]\n");
        try {
            assertThat(exchange(TestServers.port(p), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .status()).isEqualTo(502);
        } finally {
            p.stop();
        }
    }

    @Test
    void aNonIdempotentRequestIsNeverReplayedAnIdempotentOneIs() throws IOException {
        String server = "{ address = \"uwsgi://" + uwsgi.address() + "\", max-fails = 0 }";
        PorticoServer p = TestServers.start("upstreams { two { servers = [" + server + ", " + server + "],"
                + " retries = 1 } }\nlocations = [ { path = \"/\", proxy = two } ]\n");
        try {
            int before = uwsgi.crashes().size();
            assertThat(exchange(TestServers.port(p), "POST /crash HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                    + "Connection: close\r\n\r\nx").status()).isEqualTo(502);
            assertThat(uwsgi.crashes().subList(before, uwsgi.crashes().size())).containsExactly("POST");
            assertThat(exchange(TestServers.port(p), "GET /crash HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .status()).isEqualTo(502);
            assertThat(uwsgi.crashes().subList(before, uwsgi.crashes().size())).containsExactly("POST", "GET", "GET");
        } finally {
            p.stop();
        }
    }

    @Test
    void overTlsHttpsIsOnAndTheSchemeHttps(@TempDir Path certDir) throws Exception {
        io.portico.testing.TestCertificates.Issued cert =
                io.portico.testing.TestCertificates.issue(certDir, "tls", List.of("localhost"));
        PorticoServer p = TestServers.start("listen = [ { address = \"127.0.0.1:0\", tls { certificates = [ { cert = \""
                + cert.cert() + "\", key = \"" + cert.key() + "\" } ] } } ]\n"
                + "locations = [ { path = \"/\", proxy = \"uwsgi://" + uwsgi.address() + "\" } ]\n");
        try {
            javax.net.ssl.SSLContext ctx = io.portico.testing.TestCertificates.trusting(cert);
            try (Socket s = ctx.getSocketFactory().createSocket("127.0.0.1", TestServers.port(p))) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write("GET /tls HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                Response r = new RawHttp(s).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(environ(r)).containsEntry("HTTPS", "on").containsEntry("REQUEST_SCHEME", "https")
                        .containsEntry("SERVER_NAME", "localhost");
            }
        } finally {
            p.stop();
        }
    }

    @Test
    void theAccessLogAndTheErrorLogNameTheProtocol() throws IOException {
        Path log = dir.resolve("access.log");
        String down = "uwsgi://127.0.0.1:" + refused.port();
        String up = "uwsgi://" + uwsgi.address();
        try (LogCapture errors = new LogCapture("io.portico.upstream")) {
            PorticoServer p = TestServers.start("access-log = \"" + log + "\"\n"
                    + "upstreams { pair { servers = [{ address = \"" + down + "\", max-fails = 0 },"
                    + " { address = \"" + up + "\", max-fails = 0 }], retries = 1, balance = round-robin } }\n"
                    + "locations = [ { path = \"/\", proxy = pair } ]\n");
            try {
                assertThat(exchange(TestServers.port(p), "GET /logged HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        .status()).isEqualTo(200);
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                        .until(() -> java.nio.file.Files.exists(log) && !java.nio.file.Files.readAllLines(log).isEmpty());
                assertThat(java.nio.file.Files.readAllLines(log).get(0))
                        .contains(" uaddr=" + down + ", " + up + " urt=");
                assertThat(errors.lines()).contains("WARN upstream pair server " + down + ": connect refused");
            } finally {
                p.stop();
            }
        }
    }

    @Test
    void healthChecksSpeakUwsgi() throws IOException {
        String check = " health-check { interval = 100ms, timeout = 1s, rise = 1, fall = 1, path = ";
        PorticoServer p = TestServers.start("upstreams {\n"
                + " sick { servers = [\"uwsgi://" + uwsgi.address() + "\"]," + check + "\"/status?503\" } }\n"
                + " well { servers = [\"uwsgi://" + uwsgi.address() + "\"]," + check + "\"/status?204\" } } }\n"
                + "locations = [ { path = \"/sick/\", proxy = sick }, { path = \"/well/\", proxy = well } ]\n");
        try {
            int port = TestServers.port(p);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                    exchange(port, "GET /sick/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status() == 502);
            // probed as often, and still in rotation: its checks reached the app and got the 204
            assertThat(exchange(port, "GET /well/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                    .isEqualTo(200);
        } finally {
            p.stop();
        }
    }

    static Response exchange(String request) throws IOException {
        return exchange(port, request);
    }

    static Response exchange(int port, String request) throws IOException {
        return RawHttp.exchange(port, request);
    }

    /** The app's echo: NAME=value lines up to BODY= (bytes as the app sent them, so latin-1). */
    static Map<String, String> environ(Response r) {
        Map<String, String> env = new LinkedHashMap<>();
        String text = r.latin1();
        int end = text.indexOf("\nBODY=");
        for (String line : text.substring(0, end < 0 ? text.length() : end).split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return env;
    }
}
