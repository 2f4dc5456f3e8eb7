package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Clients that hold resources without making progress: one that stops reading a large response is closed after
 * send-timeout (static file and proxied body alike) while others are served throughout; a slowloris crowd does
 * not keep a normal client waiting, and each of them gets 408.
 */
class SlowClientsTest {
    static final int LARGE = 64 * 1024 * 1024;
    static Path root;
    static RecordingUpstream upstream;
    static PorticoServer server;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createTempDirectory("portico-slow");
        try (RandomAccessFile f = new RandomAccessFile(root.resolve("large.bin").toFile(), "rw")) {
            f.setLength(LARGE); // sparse: costs no disk
        }
        Files.writeString(root.resolve("small.txt"), "small");
        upstream = RecordingUpstream.tcp().behave((c, r) -> {
            if (r.requestLine().contains("/app/large")) {
                c.write(("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                byte[] block = new byte[256 * 1024];
                for (int sent = 0; sent < LARGE; sent += block.length) {
                    c.write(block);
                }
            } else {
                RecordingUpstream.keepAliveOk(c, r);
            }
        });
        server = TestServers.start("access-log = \"" + root.resolve("access.log") + "\"\n"
                + "limits { send-timeout = 300ms, client-header-timeout = 300ms }\n"
                + "upstreams { app { servers = [{ address = \"" + upstream.address()
                + "\", max-fails = 0 }], retries = 0, read-timeout = 5s } }\n"
                + "locations = [ { path = \"/app/\", proxy = app }, { path = \"/\", root = \"" + root + "/\" } ]");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        upstream.close();
        Files.deleteIfExists(root.resolve("large.bin"));
        Files.deleteIfExists(root.resolve("small.txt"));
        Files.deleteIfExists(root.resolve("access.log"));
        Files.deleteIfExists(root);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/large.bin", "/app/large"})
    void aClientThatStopsReadingIsClosedAfterSendTimeoutWhileOthersAreServed(String target) throws Exception {
        try (RawHttp stalled = RawHttp.withReceiveBuffer(port, 16 * 1024)) {
            stalled.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
            // For longer than send-timeout the stalled client reads nothing, and others keep being served.
            await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(100))
                    .until(() -> normal().equals("small"));
            long received = stalled.readToClose().length;
            assertThat(received).as("bytes the stalled client got before the close").isGreaterThan(0).isLessThan(LARGE);
        }
        assertThat(normal()).isEqualTo("small");
        if (target.startsWith("/app/")) {
            // The proxy goes on serving: with response buffering the abandoned body may have been read (spilled)
            // whole and its upstream connection rightly reused, so only the answer is asserted here.
            try (RawHttp c = new RawHttp(port)) {
                assertThat(c.send("GET /app/after HTTP/1.1\r\nHost: x\r\n\r\n").read().text()).startsWith("ok 0 ");
            }
        }
    }

    /**
     * And the close completes while the client still reads nothing: its access log line is written. On io_uring a
     * send blocked on the client's full socket buffer kept the close pending until the client read
     * (transport.UringCloseHandler), which the test above, whose client reads to the close, cannot see.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/large.bin", "/app/large"})
    void aClientThatReadsNothingIsClosedBySendTimeoutWithoutReading(String target) throws Exception {
        try (LogCapture access = new LogCapture("portico.access");
                RawHttp stalled = RawHttp.withReceiveBuffer(port, 16 * 1024)) {
            stalled.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
            // The line is written as the connection closes: 300 ms of send-timeout, far less than this.
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> access.lines().stream().anyMatch(l -> l.contains("GET " + target + " ")));
            assertThat(access.lines().stream().filter(l -> l.contains("GET " + target + " ")).findFirst()
                    .orElseThrow()).contains("\" 200 ").endsWith(" incomplete");
            // Reading now drains what the kernel queued up to the server's FIN (or its reset).
            assertThat(stalled.readToClose().length).as("bytes before the close").isLessThan(LARGE);
        }
    }

    @Test
    void aSlowlorisCrowdDoesNotDelayANormalClient() throws Exception {
        // Its own server with a 3 s head timeout: a server the crowd blocked would answer the normal client only
        // once the crowd timed out, so 1.5 s separates the two even on a loaded machine (300 ms did not).
        PorticoServer own = TestServers.start("limits { client-header-timeout = 3s }\n"
                + "locations = [ { path = \"/\", root = \"" + root + "/\" } ]");
        int ownPort = TestServers.port(own);
        List<RawHttp> crowd = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                crowd.add(new RawHttp(ownPort).send("GET / HTTP/1.1\r\nHost: x\r\nX-Partial: "));
            }
            long start = System.nanoTime();
            assertThat(normal(ownPort)).isEqualTo("small");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1500));
            for (RawHttp c : crowd) {
                assertThat(c.read().status()).isEqualTo(408);
                assertThat(c.closedByServer()).isTrue();
            }
            assertThat(normal(ownPort)).isEqualTo("small");
        } finally {
            for (RawHttp c : crowd) {
                c.close();
            }
            own.stop();
        }
    }

    /**
     * limits.client-body-min-rate: a body trickled at 10 bytes/s (never idle for client-body-timeout) gets 408 and
     * a close once a 1 s window carried less than 100 bytes, and the upstream sees nothing; a body that keeps pace
     * (400 bytes/s, in small pieces) is forwarded whole.
     */
    @Test
    void aBodyBelowTheMinimumRateGets408AndOneThatKeepsPaceIsServed() throws Exception {
        RecordingUpstream app = RecordingUpstream.tcp();
        PorticoServer own = TestServers.start("limits { client-body-timeout = 1s, client-body-min-rate = 100 }\n"
                + "upstreams { app { servers = [{ address = \"" + app.address() + "\", max-fails = 0 }] } }\n"
                + "locations = [ { path = \"/\", proxy = app } ]");
        try (RawHttp slow = new RawHttp(TestServers.port(own))) {
            slow.setTimeout(5000);
            long start = System.nanoTime();
            slow.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n");
            // 6 s at 10 bytes/s, were it allowed to finish; stop at the answer (writing on would draw a reset)
            for (int i = 0; i < 60 && slow.input().available() == 0; i++) {
                slow.send("a");
                Thread.sleep(100);
            }
            String answer = new String(slow.readToClose(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 408 ");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(3500));
            assertThat(app.bytesReceived()).as("bytes at the upstream").isZero();

            try (RawHttp paced = new RawHttp(TestServers.port(own))) {
                paced.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n");
                for (int i = 0; i < 25; i++) { // 2.5 s, more than two windows, 40 bytes every 100 ms
                    paced.send("b".repeat(40));
                    Thread.sleep(100);
                }
                assertThat(paced.read().status()).isEqualTo(200);
            }
            assertThat(app.requests()).extracting(RecordingUpstream.Request::bodyLength).containsExactly(1000L);
        } finally {
            own.stop();
            app.close();
        }
    }

    /**
     * Time Portico holds a body back is not the client's: a request a rate-limit zone delays for 1.2 s (reads
     * paused, the body waiting in the socket) is served, though a 500 ms window passes without a body byte read.
     */
    @Test
    void aBodyPorticoHoldsBackIsNotMeasured() throws Exception {
        RecordingUpstream app = RecordingUpstream.tcp();
        PorticoServer own = TestServers.start("limits { client-body-timeout = 500ms, client-body-min-rate = 1k }\n"
                + "rate-limits { slow { rate = 50r/m, burst = 5 } }\n"
                + "upstreams { app { servers = [{ address = \"" + app.address() + "\", max-fails = 0 }] } }\n"
                + "locations = [ { path = \"/\", proxy = app, rate-limit = slow } ]");
        try (RawHttp first = new RawHttp(TestServers.port(own)); RawHttp held = new RawHttp(TestServers.port(own))) {
            assertThat(first.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
            long start = System.nanoTime();
            held.send("POST /held HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n");
            Thread.sleep(100); // the head is held by now; the body waits in the socket while the zone delays it
            Response r = held.send("0123456789").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the zone's delay").isGreaterThan(
                    Duration.ofMillis(900));
        } finally {
            own.stop();
            app.close();
        }
    }

    private static String normal() throws IOException {
        return normal(port);
    }

    private static String normal(int port) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return c.send("GET /small.txt HTTP/1.1\r\nHost: x\r\n\r\n").read().text();
        }
    }
}
