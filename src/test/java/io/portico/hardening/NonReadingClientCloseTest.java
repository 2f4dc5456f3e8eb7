package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client that never reads its large response is closed by send-timeout, and the close completes while the client
 * still reads nothing: its access log line is written. On io_uring a send blocked on the client's full socket
 * buffer kept the close pending until the client read (connection.UringCloseHandler), which a test whose client reads
 * to the close (SlowClientsTest) cannot see. Static file (a file region) and proxied body (buffers) alike; CI runs
 * it on epoll and on io_uring.
 */
class NonReadingClientCloseTest {
    private static final int LARGE = 64 * 1024 * 1024;
    private static Path root;
    private static RecordingUpstream upstream;
    private static PorticoServer server;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createTempDirectory("portico-nonreading");
        try (RandomAccessFile f = new RandomAccessFile(root.resolve("large.bin").toFile(), "rw")) {
            f.setLength(LARGE); // sparse: costs no disk
        }
        upstream = RecordingUpstream.tcp().behave((c, r) -> {
            c.write(("HTTP/1.1 200 OK\r\nContent-Length: " + LARGE + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] block = new byte[256 * 1024];
            for (int sent = 0; sent < LARGE; sent += block.length) {
                c.write(block);
            }
        });
        server = TestServers.start("access-log = \"" + root.resolve("access.log") + "\"\n"
                + "limits { send-timeout = 300ms }\n"
                + "upstreams { app { servers = [{ address = \"" + upstream.address()
                + "\", max-fails = 0 }], retries = 0, read-timeout = 30s } }\n"
                + "locations = [ { path = \"/app/\", proxy = app }, { path = \"/\", root = \"" + root + "/\" } ]");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        upstream.close();
        Files.deleteIfExists(root.resolve("large.bin"));
        Files.deleteIfExists(root.resolve("access.log"));
        Files.deleteIfExists(root);
    }

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
}
