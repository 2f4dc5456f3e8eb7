package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The limits of {@code limits { }} through proxy locations: sizes are refused from the head (413 from
 * Content-Length before the body is read), slow heads and bodies get 408, idle keep-alive connections are
 * closed, and max-connections makes extra clients wait rather than fail. A refused request never reaches the
 * upstream, and a normal request on a new connection is served afterwards.
 */
class LimitsTest {
    @RegisterExtension
    static final SharedPortico SHARED = new SharedPortico();

    private static ProxiedPortico portico() {
        return SHARED.get();
    }

    static Stream<Arguments> oversized() {
        String h = "Host: x\r\n";
        return Stream.of("/", "/stream/").flatMap(path -> Stream.of(
                Arguments.of(path, "request line over max-request-line", 414,
                        "GET " + path + "a".repeat(1100) + " HTTP/1.1\r\n" + h + "\r\n"),
                Arguments.of(path, "header block over max-header-size", 431,
                        "GET " + path + " HTTP/1.1\r\n" + h + "X-Big: " + "b".repeat(2100) + "\r\n\r\n"),
                Arguments.of(path, "many small headers over max-header-size", 431, "GET " + path + " HTTP/1.1\r\n" + h
                        + "X-A: " + "c".repeat(100) + "\r\n" + ("X-B: " + "d".repeat(200) + "\r\n").repeat(10)
                        + "\r\n"),
                Arguments.of(path, "header count over max-header-count", 431,
                        "GET " + path + " HTTP/1.1\r\n" + h + "X-A: 1\r\n".repeat(21) + "\r\n"),
                Arguments.of(path, "Content-Length over max-body-size", 413,
                        "POST " + path + " HTTP/1.1\r\n" + h + "Content-Length: 1025\r\n\r\n"),
                Arguments.of(path, "Content-Length over max-body-size with a body", 413,
                        "POST " + path + " HTTP/1.1\r\n" + h + "Content-Length: 2048\r\n\r\n" + "e".repeat(2048)),
                Arguments.of(path, "Content-Length over max-body-size expecting 100", 413,
                        "POST " + path + " HTTP/1.1\r\n" + h
                                + "Content-Length: 5000000\r\nExpect: 100-continue\r\n\r\n"),
                Arguments.of(path, "head never finished", 408, "GET " + path + " HTTP/1.1\r\n" + h + "X-Slow: "),
                Arguments.of(path, "request line never finished", 408, "GET " + path),
                Arguments.of(path, "buffered body never finished", 408,
                        "POST " + path + " HTTP/1.1\r\n" + h + "Content-Length: 10\r\n\r\nhello")));
    }

    @ParameterizedTest(name = "{1} at {0} -> {2}")
    @MethodSource("oversized")
    void isRefusedBeforeTheUpstreamSeesIt(String path, String name, int status, String bytes) throws Exception {
        long start = System.nanoTime();
        try (RawHttp c = new RawHttp(portico().port)) {
            Response r = c.send(bytes).read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        if (!(path.equals("/stream/") && name.startsWith("buffered body"))) {
            assertThat(portico().upstream.bytesReceived()).as("bytes at the upstream").isZero();
        }
        portico().assertStillServes();
    }

    @Test
    void aStreamedBodyThatStopsGets408AndTheUpstreamNeverAWholeRequest() throws Exception {
        try (RawHttp c = new RawHttp(portico().port)) {
            Response r = c.send("POST /stream/ HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello").read();
            assertThat(r.status()).isIn(408, 502);
            assertThat(c.closedByServer()).isTrue();
        }
        portico().assertStillServes();
        assertThat(portico().upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /normal HTTP/1.1");
    }

    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheTimeout() throws Exception {
        PorticoServer s = TestServers.start("limits { keepalive-timeout = 300ms }\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"ok\" } } ]");
        try (RawHttp c = new RawHttp(TestServers.port(s))) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long start = System.nanoTime();
            c.setTimeout(3000);
            assertThat(c.closedByServer()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(200), Duration.ofMillis(2000));
        } finally {
            s.stop();
        }
    }

    @Test
    void keepaliveRequestsEndsTheConnectionAfterTheLastOne() throws Exception {
        PorticoServer s = TestServers.start("limits { keepalive-requests = 2 }\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"ok\" } } ]");
        try (RawHttp c = new RawHttp(TestServers.port(s))) {
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().header("connection")).isNotEqualTo("close");
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        } finally {
            s.stop();
        }
    }

    @Test
    void atMaxConnectionsAnExtraClientWaitsThenIsServed() throws Exception {
        PorticoServer s = TestServers.start("limits { max-connections = 2, keepalive-timeout = 10s }\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"ok\" } } ]");
        int port = TestServers.port(s);
        try (RawHttp a = new RawHttp(port); RawHttp b = new RawHttp(port)) {
            assertThat(a.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            assertThat(b.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            try (RawHttp extra = new RawHttp(port)) { // the kernel completes the handshake; Portico does not accept
                extra.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
                extra.setTimeout(300);
                assertThat(readsNothing(extra)).as("no answer while at the limit").isTrue();
                a.close();
                extra.setTimeout(3000);
                Response r = extra.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("ok");
            }
        } finally {
            s.stop();
        }
    }

    @Test
    void slowHeadersFromManyClientsGet408() throws Exception {
        RawHttp[] slow = new RawHttp[20];
        try {
            for (int i = 0; i < slow.length; i++) {
                slow[i] = new RawHttp(portico().port).send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ");
            }
            for (RawHttp c : slow) {
                assertThat(c.read().status()).isEqualTo(408);
            }
        } finally {
            for (RawHttp c : slow) {
                if (c != null) {
                    c.close();
                }
            }
        }
        assertThat(portico().upstream.bytesReceived()).isZero();
        await().atMost(Duration.ofSeconds(2)).untilAsserted(portico()::assertStillServes);
    }

    /**
     * A location's max-body-size overrides limits.max-body-size (1k here) both ways: /big/ (10m) takes bodies the
     * global limit refuses, /small/ (100) refuses, from the head and before any 100 Continue, bodies the global
     * limit takes, and a chunked body as it grows past 100; a location without one keeps the global limit.
     */
    @Test
    void aLocationsMaxBodySizeOverridesTheGlobalOne() throws Exception {
        RecordingUpstream app = RecordingUpstream.tcp();
        Path files = Files.createTempDirectory("portico-limits");
        PorticoServer s = TestServers.start("limits { max-body-size = 1k }\n"
                + "upstreams { app { servers = [{ address = \"" + app.address() + "\", max-fails = 0 }] } }\n"
                + "locations = [ { path = \"/\", proxy = app },"
                + " { path = \"/big/\", proxy = app, max-body-size = 10m },"
                + " { path = \"/small/\", proxy = app, max-body-size = 100 },"
                + " { path = \"/small-stream/\", proxy = app, streaming = true, max-body-size = 100 },"
                + " { path = \"/files/\", root = \"" + files + "/\", try-files = [\"$uri\", \"@app\"],"
                + " max-body-size = 10m } ]");
        int port = TestServers.port(s);
        try {
            String h = " HTTP/1.1\r\nHost: x\r\n";
            String chunked2k = "Transfer-Encoding: chunked\r\n\r\n800\r\n" + "c".repeat(2048) + "\r\n0\r\n\r\n";
            assertThat(exchange(port, "POST /big/a" + h + "Content-Length: 2048\r\n\r\n" + "a".repeat(2048)))
                    .isEqualTo("200 open");
            assertThat(exchange(port, "POST /big/b" + h + chunked2k)).isEqualTo("200 open");
            assertThat(exchange(port, "POST /small/c" + h + "Content-Length: 100\r\n\r\n" + "d".repeat(100)))
                    .isEqualTo("200 open");
            // a static location's own limit holds for the upstream it falls back to
            assertThat(exchange(port, "POST /files/up" + h + "Content-Length: 2048\r\n\r\n" + "f".repeat(2048)))
                    .isEqualTo("200 open");
            assertThat(app.requests()).extracting(RecordingUpstream.Request::bodyLength)
                    .containsExactly(2048L, 2048L, 100L, 2048L);
            app.reset();

            assertThat(exchange(port, "POST /small/e" + h + "Content-Length: 200\r\n\r\n" + "e".repeat(200)))
                    .isEqualTo("413 closed");
            assertThat(exchange(port, "POST /small/f" + h + "Content-Length: 200\r\nExpect: 100-continue\r\n\r\n"))
                    .as("no 100 Continue first").isEqualTo("413 closed");
            String chunked200 = "Transfer-Encoding: chunked\r\n\r\n64\r\n" + "g".repeat(100) + "\r\n"
                    + "64\r\n" + "g".repeat(100) + "\r\n0\r\n\r\n";
            assertThat(exchange(port, "POST /small/g" + h + chunked200)).isEqualTo("413 closed");
            assertThat(exchange(port, "POST /h" + h + "Content-Length: 2048\r\n\r\n" + "h".repeat(2048)))
                    .as("the global limit where the location has none").isEqualTo("413 closed");
            assertThat(exchange(port, "POST /" + h + chunked2k)).isEqualTo("413 closed");
            assertThat(app.bytesReceived()).as("bytes at the upstream").isZero();
            // streaming: the head may have gone, never a whole request
            assertThat(exchange(port, "POST /small-stream/i" + h + chunked200)).isIn("413 closed", "502 closed");
            assertThat(exchange(port, "POST /small-stream/j" + h + "Content-Length: 200\r\n\r\n" + "j".repeat(200)))
                    .isEqualTo("413 closed");
            assertThat(app.requests()).isEmpty();
        } finally {
            s.stop();
            app.close();
            Files.delete(files);
        }
    }

    /** One request on a new connection: "STATUS open" or "STATUS closed". */
    private static String exchange(int port, String request) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(request).read();
            c.setTimeout(500);
            return r.status() + (c.closedByServer() ? " closed" : " open");
        }
    }

    private static boolean readsNothing(RawHttp c) throws IOException {
        return !c.closedByServer();
    }
}
