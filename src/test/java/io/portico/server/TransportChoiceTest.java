package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code transport}: each choice serves through its own channels, including the sendfile path (a file above the
 * cache's max-file-size goes out as a file region, corked; on io_uring from a mapping of the file). The whole suite
 * also runs a second time in CI on the transport {@code auto} does not pick ({@code PORTICO_TRANSPORT=epoll}),
 * which the last test checks took effect.
 */
class TransportChoiceTest {
    @TempDir
    Path dir;

    private PorticoServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void ioUringServesFilesFromMemoryAndBySendfile() throws IOException {
        assumeTrue(IoUring.isAvailable(), "io_uring does not load here");
        servesBothPaths("io_uring", "io_uring");
    }

    /** Explicit epoll keeps working now that {@code auto} prefers io_uring (CI's second pass runs the suite on it). */
    @Test
    void epollServesFilesFromMemoryAndBySendfile() throws IOException {
        assumeTrue(Epoll.isAvailable(), "epoll does not load here");
        servesBothPaths("epoll", "epoll");
    }

    /** {@code auto}: io_uring where it loads, then epoll, then NIO. */
    @Test
    void autoIsIoUringWhereItLoadsElseEpoll() throws IOException {
        assumeTrue(Epoll.isAvailable(), "neither native transport loads here (the NIO fallback is tested below)");
        server = TestServers.start(TestServers.config("transport = auto\n"
                + "locations = [ { path = \"/\", return = 204 } ]", dir));
        assertThat(server.transport()).isEqualTo(IoUring.isAvailable() ? "io_uring" : "epoll");
        try (RawHttp client = new RawHttp(TestServers.port(server))) {
            assertThat(client.get("/").status()).isEqualTo(204);
        }
    }

    @Test
    void nioServesFilesFromMemoryAndBySendfile() throws IOException {
        servesBothPaths("nio", "nio");
    }

    /**
     * Where native epoll does not load (another OS, or {@code -Dio.netty.transport.noNative=true} as here), the
     * default still starts, on NIO: in a JVM of its own, since Netty decides once per JVM.
     */
    @Test
    void withoutNativeEpollTheDefaultStartsOnNio() throws Exception {
        Path conf = dir.resolve("portico.conf");
        // transport = auto stated: CI's second run sets PORTICO_TRANSPORT, which the child would inherit.
        Files.writeString(conf, "portico { listen = [\"127.0.0.1:0\"], workers = 1, access-log = off, pid-file = off\n"
                + "transport = auto\n"
                + "locations = [ { path = \"/\", return = 204 } ] }\n");
        // The server's own logback.xml: the tests' one keeps the INFO start-up lines quiet.
        String logback = Path.of(PorticoServer.class.getResource("/logback.xml").toURI()).toString();
        Process serve = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dio.netty.transport.noNative=true", "-Dlogback.configurationFile=" + logback,
                "-cp", System.getProperty("java.class.path"), "io.portico.cli.Main", "serve", "--conf", conf.toString())
                .redirectErrorStream(true).start();
        // A server that never says it listens must fail the test, not hang it: its output then ends.
        CompletableFuture.delayedExecutor(30, TimeUnit.SECONDS).execute(serve::destroyForcibly);
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8))) {
            StringBuilder seen = new StringBuilder();
            for (String line; (line = out.readLine()) != null; ) {
                seen.append(line).append('\n');
                if (line.contains("portico listening on")) {
                    break;
                }
            }
            assertThat(seen.toString()).contains("native epoll not available").contains("(nio transport");
        } finally {
            serve.destroy();
            serve.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void anUnknownTransportIsAConfigErrorNamingTheKey() {
        assertThatThrownBy(() -> TestServers.config("transport = kqueue", dir))
                .hasMessageContaining("test.conf:")
                .hasMessageContaining(
                        "transport: 'kqueue' is not allowed (expected: one of auto, epoll, io-uring, nio)");
    }

    @Test
    void theEnvironmentChoosesTheDefaultTransport() throws IOException {
        String chosen = System.getenv("PORTICO_TRANSPORT");
        assumeTrue(chosen != null && !chosen.isEmpty(), "PORTICO_TRANSPORT is not set");
        server = TestServers.start(TestServers.config("locations = [ { path = \"/\", return = 204 } ]", dir));
        assertThat(server.transport()).isEqualTo(chosen.replace('-', '_'));
    }

    private void servesBothPaths(String setting, String expected) throws IOException {
        byte[] small = "hello\n".getBytes();
        byte[] large = new byte[300 * 1024]; // above static.cache.max-file-size (256k): sent as a file region
        new Random(7).nextBytes(large);
        Files.write(dir.resolve("small.txt"), small);
        Files.write(dir.resolve("large.bin"), large);
        server = TestServers.start(TestServers.config("transport = " + setting + "\n"
                + "locations = [ { path = \"/\", root = \"" + dir + "/\" } ]", dir));
        assertThat(server.transport()).isEqualTo(expected);

        try (RawHttp client = new RawHttp(TestServers.port(server))) {
            client.send("GET /small.txt HTTP/1.1\r\nHost: t\r\n\r\n");
            Response r = client.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(small);

            client.send("GET /large.bin HTTP/1.1\r\nHost: t\r\n\r\n");
            r = client.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(large);

            client.send("GET /large.bin HTTP/1.1\r\nHost: t\r\nRange: bytes=100000-199999\r\n\r\n");
            r = client.read();
            assertThat(r.status()).isEqualTo(206);
            assertThat(r.body()).isEqualTo(Arrays.copyOfRange(large, 100000, 200000));
        }
    }
}
