package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/1 message rules beyond framing, through a real Portico with a static location and proxy locations
 * (buffering {@code /}, streaming {@code /stream/}, and both again under {@code /half-close/} with
 * {@code ignore-client-abort = true}) to a recording upstream: {@code OPTIONS *} answered by Portico,
 * {@code Expect} (ignored on HTTP/1.0; 417 then close on 1.1, never followed by a forward), the exact
 * {@code max-header-size} and chunk-size line bounds, half-closing clients, and the {@code Date} format.
 */
class MessageRulesTest {
    /** The hardening limits, with the default 8k request line so that the 4 KiB chunk-line bound is its own. */
    private static final String LIMITS = "limits { max-body-size = 1k, max-header-count = 20, max-request-line = 8k,"
            + " max-header-size = 2k, client-header-timeout = 300ms, client-body-timeout = 300ms,"
            + " send-timeout = 300ms, keepalive-timeout = 2s }\n";
    private static final String ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

    static RecordingUpstream upstream;
    static PorticoServer server;
    static int port;
    static Path root;

    @BeforeAll
    static void start() throws Exception {
        upstream = RecordingUpstream.tcp();
        root = Files.createTempDirectory("portico-rules");
        Files.writeString(root.resolve("a.txt"), "static file");
        server = TestServers.start(LIMITS
                + "upstreams { app { servers = [{ address = \"" + upstream.address() + "\", max-fails = 0 }],"
                + " retries = 0, connect-timeout = 300ms, read-timeout = 300ms, send-timeout = 300ms } }\n"
                + "locations = [ { path = \"/\", proxy = app }, { path = \"/stream/\", proxy = app, streaming = true },"
                + " { path = \"/half-close/\", proxy = app, ignore-client-abort = true },"
                + " { path = \"/half-close/stream/\", proxy = app, streaming = true, ignore-client-abort = true },"
                + " { path = \"/static/\", alias = \"" + root + "/\" } ]\n");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        upstream.close();
        Files.deleteIfExists(root.resolve("a.txt"));
        Files.deleteIfExists(root);
    }

    @BeforeEach
    void reset() {
        upstream.reset();
    }

    // OPTIONS *

    @Test
    void optionsAsteriskIsAnsweredByPorticoAndTheConnectionStaysOpen() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("allow")).isEqualTo(ALLOW);
            assertThat(r.header("content-length")).isEqualTo("0");
            assertThat(r.header("connection")).isNull();
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /next HTTP/1.1");
    }

    @Test
    void optionsAsteriskWithABodyAndPipelinedRequestsAreAnsweredInOrder() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n"
                    + "helloGET /third HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().text()).startsWith("ok 0 ");
            Response options = c.read();
            assertThat(options.status()).isEqualTo(200);
            assertThat(options.header("allow")).isEqualTo(ALLOW);
            Response third = c.read();
            assertThat(third.status()).isEqualTo(200);
            assertThat(third.text()).startsWith("ok 0 ");
        }
        assertThat(upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /first HTTP/1.1", "GET /third HTTP/1.1");
    }

    @Test
    void optionsOnAPathIsForwarded() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("OPTIONS /api HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("OPTIONS /api HTTP/1.1");
    }

    // Expect

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/", "/stream/"})
    void expectFromAnHttp10ClientIsIgnored(String path) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("POST " + path + " HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")
                    .read();
            assertThat(r.status()).as("no 100 and no 417").isEqualTo(200);
            assertThat(r.text()).startsWith("ok 5 ");
        }
        assertThat(upstream.requests()).hasSize(1);
        assertThat(upstream.requests().get(0).head()).doesNotContainIgnoringCase("expect");
    }

    @Test
    void anUnknownExpectationFromAnHttp10ClientIsIgnoredToo() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("GET / HTTP/1.0\r\nExpect: something\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).hasSize(1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
        "POST / HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 5\r\n\r\nhello",
        "POST /stream/ HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Length: 5\r\n\r\nhello",
        "POST / HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, foo\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n"})
    void anUnknownExpectationGets417AndNothingAfterItIsForwarded(String request) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send(request + "GET /pipelined HTTP/1.1\r\nHost: x\r\n\r\n");
            Response r = c.read();
            assertThat(r.status()).isEqualTo(417);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).as("closed after the 417, the pipelined request unanswered").isTrue();
        }
        // A forward of the pipelined request would be on its way by now: the normal request goes after it.
        assertStillServes();
        assertThat(upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /normal HTTP/1.1");
    }

    @Test
    void aRefusalBeforeItsContinueClosesTheConnectionInsteadOfReadingTheNextRequestAsTheBody() throws Exception {
        PorticoServer only = TestServers.start("locations = [ { exact = \"/only\", return = { status = 200 } } ]");
        String next = "GET /only HTTP/1.1\r\nHost: x\r\n\r\n";
        try (RawHttp c = new RawHttp(TestServers.port(only))) {
            // Routing refuses it (404) before any 100 Continue: the client never sends the body, but its next
            // request, exactly as long as the declared body. Read as the body, it would be lost unanswered.
            c.send("POST /elsewhere HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: "
                    + next.length() + "\r\n\r\n");
            Response r = c.read();
            assertThat(r.status()).isEqualTo(404);
            assertThat(r.header("connection")).isEqualTo("close");
            c.setTimeout(1000);
            c.send(next);
            assertThat(c.closedByServer()).isTrue();
        } finally {
            only.stop();
        }
    }

    @Test
    void aRefusalAfterTheContinueKeepsTheConnection() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
            Response cont = c.read();
            assertThat(cont.status()).isEqualTo(100);
            Response r = c.send("hello").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("connection")).isNull();
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    // max-header-size, exactly

    /** A head whose field lines (Host first), each with its CRLF, come to exactly {@code size} bytes. */
    private static String headOfFieldBytes(int size, int lines) {
        StringBuilder b = new StringBuilder("GET /sized HTTP/1.1\r\n");
        int left = size - "Host: x\r\n".length();
        b.append("Host: x\r\n");
        for (int i = 0; i < lines; i++) {
            String name = "X-Pad-" + i + ": ";
            int pad = i == lines - 1 ? left - name.length() - 2 : 10;
            b.append(name).append("p".repeat(pad)).append("\r\n");
            left -= name.length() + pad + 2;
        }
        assertThat(b.length() - "GET /sized HTTP/1.1\r\n".length()).isEqualTo(size);
        return b.append("\r\n").toString();
    }

    @ParameterizedTest(name = "{0} padding lines")
    @ValueSource(ints = {1, 10})
    void headerFieldsOfExactlyMaxHeaderSizeAreAcceptedAndOneByteMoreIs431(int lines) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(headOfFieldBytes(2048, lines)).read();
            assertThat(r.status()).as("2048 bytes of field lines, CRLFs counted").isEqualTo(200);
        }
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(headOfFieldBytes(2049, lines)).read();
            assertThat(r.status()).as("2049 bytes").isEqualTo(431);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /sized HTTP/1.1");
    }

    @Test
    void foldedLinesCountWithTheirLineEndings() throws Exception {
        // Host (9 bytes), X-A with its padding and CRLF, and a continuation line "  x" (5 bytes with its CRLF)
        String exact = "GET /folded HTTP/1.1\r\nHost: x\r\nX-A: " + "p".repeat(2048 - 21) + "\r\n  x\r\n\r\n";
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send(exact).read().status()).isEqualTo(200);
        }
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send(exact.replace("\r\n  x", "\r\n   x")).read().status()).isEqualTo(431);
        }
    }

    @Test
    void emptyLinesBeforeARequestDoNotCountAsItsHeader() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("\r\n\r\n" + headOfFieldBytes(2048, 2)).read().status()).isEqualTo(200);
            assertThat(c.send("\r\n" + headOfFieldBytes(2048, 3)).read().status()).isEqualTo(200);
            assertThat(c.send("\r\n" + headOfFieldBytes(2049, 3)).read().status()).isEqualTo(431);
        }
    }

    // chunk-size lines: 4 KiB

    /** A chunked POST whose first chunk-size line is {@code lineLength} bytes long (without its CRLF). */
    private static String chunkLineOf(int lineLength) {
        String line = "5;a=" + "b".repeat(lineLength - 4);
        return "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + line + "\r\nhello\r\n0\r\n\r\n";
    }

    @Test
    void aChunkSizeLineOf4KiBIsAcceptedAndOneByteMoreIs400() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(chunkLineOf(4096)).read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).startsWith("ok 5 ");
        }
        upstream.reset();
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(chunkLineOf(4097)).read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(upstream.bytesReceived()).isZero();
    }

    @Test
    void aChunkSizeLineArrivingByteByByteIsBoundedToo() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=");
            for (int i = 0; i < 5; i++) {
                c.send("b".repeat(1000));
            }
            Response r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(upstream.bytesReceived()).isZero();
    }

    // half-closing clients

    /**
     * A proxied request keeps its half-closing client only where the location says {@code ignore-client-abort}:
     * by default the FIN aborts the exchange, as nginx's does (ProxyClientAbortTest).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/static/a.txt", "/half-close/proxied", "/half-close/stream/proxied"})
    void aClientThatHalfClosesAfterItsRequestGetsTheResponse(String path) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput().read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.text()).isIn("static file", "ok 0 " + EMPTY_SHA256);
            // (Connection: close only when the FIN was seen before the response began: a static one may not wait.)
            assertThat(c.closedByServer()).as("closed once the response is out").isTrue();
        }
    }

    private static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    @Test
    void aClientThatHalfClosesAfterPipelinedRequestsGetsEveryResponse() throws Exception {
        // To locations that keep half-closed clients: by default the FIN, read with the requests, would abort the
        // proxied ones as they reach their exchange (nginx's rule).
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET /static/a.txt HTTP/1.1\r\nHost: x\r\n\r\nPOST /half-close/one HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 3\r\n\r\nabcGET /half-close/two HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput();
            assertThat(c.read().text()).isEqualTo("static file");
            assertThat(c.read().text()).startsWith("ok 3 ");
            Response last = c.read();
            assertThat(last.text()).startsWith("ok 0 ");
            assertThat(last.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("POST /half-close/one HTTP/1.1", "GET /half-close/two HTTP/1.1");
    }

    @Test
    void aClientThatHalfClosesInsideABodyIsClosedAndNothingIsForwarded() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello").shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(upstream.requests()).isEmpty();
        assertStillServes();
    }

    @Test
    void aClientThatHalfClosesWhenIdleIsClosed() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("GET /static/a.txt HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            c.shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        }
    }

    // Date

    @Test
    void dateIsAnImfFixdate() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET /static/a.txt HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.header("date")).matches("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} "
                    + "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
        }
    }

    private static void assertStillServes() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET /normal HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).as("a normal request on a new connection").isEqualTo(200);
        }
    }
}
