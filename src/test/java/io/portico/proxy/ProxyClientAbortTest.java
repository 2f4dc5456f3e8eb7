package io.portico.proxy;

import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.target;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.portico.config.TargetConfig;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import io.netty.channel.uring.IoUring;
import io.portico.metrics.Scrape;
import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RawHttp;
import io.portico.testing.TempFiles;
import io.portico.testing.TestServers;
import io.portico.testing.Response;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client that sends its FIN (shutdown(SHUT_WR)) while its proxied response is awaited or relayed: the exchange is
 * aborted as nginx aborts it (499, the upstream connection closed, no failure against the server, no retry), unless
 * the location says {@code ignore-client-abort = true}; a half-closed client of anything else still gets its answer.
 * On the real server, over loopback sockets.
 */
class ProxyClientAbortTest {
    private static final int MIB = 1024 * 1024;
    /** Far above what any check below waits: an upstream closed by it would mean the client's FIN went unheard. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

    /** An app that reads the request, sends nothing, and counts down when the proxy hangs up on it. */
    private static TestUpstream.Script silentUntilClosed(CountDownLatch gone) {
        return (req, out, s) -> {
            if (Channels.newInputStream(s).read() == -1) {
                gone.countDown();
            }
            return false;
        };
    }

    private static UpstreamServerConfig failsOnce(int port) {
        UpstreamServerConfig s = server(port);
        return new UpstreamServerConfig(s.address(), 1, 1, Duration.ofSeconds(30), false);
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @CsvSource({"1, true", "2, true", "1, false"})
    void finWhileTheResponseHeadIsAwaitedClosesTheUpstreamAndLogs499(int loops, boolean epoll) throws Exception {
        CountDownLatch firstGone = new CountDownLatch(1);
        CountDownLatch secondGone = new CountDownLatch(1);
        try (TestUpstream first = new TestUpstream(silentUntilClosed(firstGone));
                TestUpstream second = new TestUpstream(silentUntilClosed(secondGone))) {
            // Two servers that a failure would take out (max-fails 1) and one retry: an abort must use neither.
            UpstreamConfig u = TestConfigs.withReadTimeout(
                    upstream(List.of(failsOnce(first.port()), failsOnce(second.port()))), READ_TIMEOUT);
            try (ProxiedServer proxy = new ProxiedServer(u, target(true, true), MIB, loops, epoll);
                    RawHttp client = new RawHttp(proxy.port())) {
                client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
                await().until(() -> first.requests.size() + second.requests.size() == 1);
                long sent = System.nanoTime();
                client.shutdownOutput();
                TestUpstream tried = first.requests.isEmpty() ? second : first;
                CountDownLatch triedGone = tried == first ? firstGone : secondGone;
                assertThat(triedGone.await(5, TimeUnit.SECONDS)).as("upstream connection closed").isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(READ_TIMEOUT.dividedBy(3));
                client.setTimeout(5000);
                assertThat(client.readToClose()).as("no response, the connection closed").isEmpty();

                String line = proxy.accessLines(1).get(0);
                assertThat(line).contains("\"GET /slow HTTP/1.1\" 499 0 ")
                        .contains("uaddr=127.0.0.1:" + tried.port())
                        .doesNotContain("upstream_error");
                assertThat(proxy.metric("portico_http_requests_total{host=\"\",location=\"/\",method=\"GET\","
                        + "code=\"499\"}")).isEqualTo(1);
                for (int i = 0; i < 2; i++) {
                    assertThat(proxy.serverUp(i)).as("server %d still in rotation", i).isTrue();
                }
                String failures = "portico_upstream_failures_total{upstream=\"app\",server=\"127.0.0.1:%d\","
                        + "cause=\"%s\"}";
                for (TestUpstream app : List.of(first, second)) {
                    for (String cause : List.of("closed", "read_timeout", "send_timeout", "connect_error")) {
                        assertThat(proxy.metric(String.format(failures, app.port(), cause))).isZero();
                    }
                }
                // Not retried: the other server never saw the request.
                assertThat(first.requests.size() + second.requests.size()).isEqualTo(1);
            }
        }
    }

    /**
     * A client whose connection is reset while its response is awaited: 499, with the server it was waiting on in
     * the access log (nginx's $upstream_addr of a 499), as for a FIN.
     */
    @Test
    void resetWhileTheResponseHeadIsAwaitedLogs499WithTheServer() throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream(silentUntilClosed(gone));
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withReadTimeout(upstream(List.of(server(app.port()))), READ_TIMEOUT),
                        target(false, false), MIB, 1, true)) {
            RawHttp client = new RawHttp(proxy.port());
            client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> app.requests.size() == 1);
            client.socket().setSoLinger(true, 0);
            client.close(); // an RST
            assertThat(gone.await(5, TimeUnit.SECONDS)).as("upstream connection closed").isTrue();
            assertThat(proxy.accessLines(1).get(0)).contains("\"GET /slow HTTP/1.1\" 499 0 ")
                    .contains("uaddr=127.0.0.1:" + app.port());
        }
    }

    /**
     * A request delayed by a rate limit (no nodelay) whose client sends its FIN meanwhile is never forwarded (499),
     * as nginx ends it during limit_req's delay: a POST is not carried out for a client that has gone. (It went to
     * the app once its delay was over, and was aborted only then.)
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"epoll", "io_uring"})
    void finWhileARateLimitDelaysTheRequestDropsItUnsent(String transport) throws Exception {
        assumeTrue(!transport.equals("io_uring") || IoUring.isAvailable(), "io_uring does not load here");
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("fine"))) {
            PorticoServer server = TestServers.start("""
                    transport = %s
                    upstreams { app { servers = ["127.0.0.1:%d"] } }
                    rate-limits { z { rate = 2r/s, burst = 5 } }
                    locations = [
                      { path = "/", proxy = app, rate-limit = z }
                      { exact = "/m", metrics = prometheus }
                    ]
                    """.formatted(transport, app.port()));
            try {
                int port = TestServers.port(server);
                try (RawHttp first = new RawHttp(port)) { // takes the token: the next ones wait 0.5 s, 1 s
                    first.send("GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                    assertThat(first.read().status()).isEqualTo(200);
                }
                try (RawHttp gone = new RawHttp(port); RawHttp stays = new RawHttp(port)) {
                    gone.send("POST /gone HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc").shutdownOutput();
                    await().ignoreExceptions().until(() -> Scrape.of(port, "/m").get("portico_http_requests_total{host=\"\","
                            + "location=\"/\",method=\"POST\",code=\"499\"}") == 1);
                    stays.send("GET /stays HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                    // answered after its delay, which ends after /gone's: /gone would be at the app by then
                    assertThat(stays.read().status()).isEqualTo(200);
                    gone.setTimeout(5000);
                    assertThat(gone.readToClose()).as("no response, the connection closed").isEmpty();
                }
                assertThat(app.requests).extracting(TestUpstream.Request::uri).containsExactly("/first", "/stays");
            } finally {
                server.stop();
            }
        }
    }

    /** With {@code ignore-client-abort = true} the FIN during the delay is a half-close: forwarded, and answered. */
    @Test
    void finWhileARateLimitDelaysTheRequestIsAHalfCloseWhereClientAbortsAreIgnored() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("fine"))) {
            PorticoServer server = TestServers.start("""
                    upstreams { app { servers = ["127.0.0.1:%d"] } }
                    rate-limits { z { rate = 2r/s, burst = 5 } }
                    locations = [ { path = "/", proxy = app, rate-limit = z, ignore-client-abort = true } ]
                    """.formatted(app.port()));
            try (RawHttp first = new RawHttp(TestServers.port(server));
                    RawHttp halfClosed = new RawHttp(TestServers.port(server))) {
                first.send("GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                assertThat(first.read().status()).isEqualTo(200);
                halfClosed.send("POST /half HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc").shutdownOutput();
                Response r = halfClosed.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("fine");
                assertThat(app.requests).extracting(TestUpstream.Request::uri).containsExactly("/first", "/half");
            } finally {
                server.stop();
            }
        }
    }

    @ParameterizedTest(name = "loops={0} epoll={1}")
    @CsvSource({"1, true", "2, true", "1, false"})
    void finWhileAStreamedResponseStallsClosesTheUpstream(int loops, boolean epoll) throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream(headThenStall(gone));
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withReadTimeout(upstream(List.of(server(app.port()))), READ_TIMEOUT),
                        target(false, false), MIB, loops, epoll);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(client.readHead().status()).isEqualTo(200);
            client.shutdownOutput();
            assertThat(gone.await(5, TimeUnit.SECONDS)).as("upstream connection closed").isTrue();
            client.setTimeout(5000);
            assertThat(new String(client.readToClose(), StandardCharsets.ISO_8859_1)).isEqualTo("first");
            // The head went out: as nginx, the status sent, and Portico's mark of a response cut short.
            assertThat(proxy.accessLines(1).get(0)).contains("\" 200 5 ").endsWith(" incomplete");
        }
    }

    @Test
    void finWhileAResponseIsParkedOnDiskDropsItAndDeletesTheFile() throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        long before = TempFiles.open("portico-response-");
        // 24 MiB at once, then nothing: 4 MiB stays in memory (proxy-buffers), a few more in the sockets' buffers,
        // and the rest is parked in a temp file, since the client reads nothing.
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    TestUpstream.sendBuffer(s, 64 * 1024);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + (100 * MIB) + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    byte[] chunk = new byte[64 * 1024];
                    for (int sent = 0; sent < 24 * MIB; sent += chunk.length) {
                        out.write(chunk);
                    }
                    out.flush();
                    if (Channels.newInputStream(s).read() == -1) {
                        gone.countDown();
                    }
                    return false;
                });
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withReadTimeout(upstream(List.of(server(app.port()))), READ_TIMEOUT),
                        target(true, true), MIB, 1, true);
                RawHttp client = RawHttp.withReceiveBuffer(proxy.port(), 64 * 1024)) {
            client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            await().atMost(Duration.ofSeconds(30)).until(() -> app.bytesWritten.get() >= 24 * MIB
                    && TempFiles.open("portico-response-") > before);
            client.shutdownOutput();
            assertThat(gone.await(5, TimeUnit.SECONDS)).as("upstream connection closed").isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> TempFiles.open("portico-response-") <= before);
            assertThat(proxy.accessLines(1).get(0)).contains("\" 200 ").endsWith(" incomplete");
        }
    }

    @Test
    void aRequestDelayedByARateLimitWhenTheFinCameIsAbortedWhenItReachesTheProxy(@TempDir Path dir)
            throws Exception {
        CountDownLatch gone = new CountDownLatch(1);
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
            if (req.uri().equals("/first")) {
                TestUpstream.respond(out, 200, "first");
                return true;
            }
            return silentUntilClosed(gone).answer(req, out, s);
        })) {
            PorticoServer server = TestServers.start("workers = 1\n"
                    + "access-log = \"" + dir.resolve("access.log") + "\"\n"
                    + "upstreams { app { servers = [\"127.0.0.1:" + app.port() + "\"], read-timeout = 30s } }\n"
                    + "rate-limits { slow { rate = 1r/s, burst = 5 } }\n"
                    + "locations = [ { path = \"/\", proxy = app, rate-limit = slow } ]\n");
            try (LogCapture access = new LogCapture("portico.access");
                    RawHttp first = new RawHttp(TestServers.port(server));
                    RawHttp second = new RawHttp(TestServers.port(server))) {
                assertThat(first.get("/first").text()).isEqualTo("first");
                // Over the rate: held by the limiter for about a second, with the client's FIN read meanwhile.
                second.send("GET /second HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput();
                second.setTimeout(10_000);
                assertThat(second.readToClose()).as("no response, the connection closed").isEmpty();
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> access.lines().stream().anyMatch(l -> l.contains("GET /second ")));
                assertThat(access.lines().stream().filter(l -> l.contains("GET /second ")).findFirst().orElseThrow())
                        .contains("\" 499 0 ");
                if (app.requests.stream().anyMatch(r -> r.uri().equals("/second"))) {
                    // It went out on the kept connection as the exchange opened: that connection is closed.
                    assertThat(gone.await(5, TimeUnit.SECONDS)).isTrue();
                }
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void ignoreClientAbortReadsTheResponseToItsEndForAHalfClosedClient() throws Exception {
        String body = "y".repeat(200_000);
        try (TestUpstream app = new TestUpstream((req, out, s) -> {
                    if (req.uri().equals("/slow")) {
                        // Slower than the client's FIN reaches the proxy: the app's time to answer, not a wait.
                        sleep(300);
                    }
                    TestUpstream.respond(out, 200, body);
                    return true;
                });
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withReadTimeout(upstream(List.of(server(app.port()))), READ_TIMEOUT),
                        TestConfigs.ignoringClientAbort(target(false, false)), MIB, 1, true)) {
            try (RawHttp client = new RawHttp(proxy.port())) {
                client.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput();
                client.setTimeout(5000);
                Response r = client.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("connection")).isEqualTo("close");
                assertThat(r.text()).isEqualTo(body);
                assertThat(client.closedByServer()).isTrue();
            }
            assertThat(proxy.accessLines(1).get(0)).contains("\" 200 200000 ").doesNotContain("incomplete");
            // Read to its end, the upstream connection went back to the pool.
            try (RawHttp next = new RawHttp(proxy.port())) {
                assertThat(next.get("/").text()).isEqualTo(body);
            }
            assertThat(app.connections.get()).isEqualTo(1);
        }
    }

    @Test
    void halfClosedClientStillGetsAStaticFile(@TempDir Path root) throws Exception {
        byte[] file = new byte[2 * MIB];
        for (int i = 0; i < file.length; i++) {
            file[i] = (byte) ('a' + i % 26);
        }
        Files.write(root.resolve("big.txt"), file);
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("unused"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                        "path = \"/\", root = \"" + root + "\"", MIB, 1, true, false);
                RawHttp client = RawHttp.withReceiveBuffer(proxy.port(), 64 * 1024)) {
            client.send("GET /big.txt HTTP/1.1\r\nHost: x\r\n\r\n").shutdownOutput();
            client.setTimeout(10_000);
            Response r = client.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).isEqualTo(file);
            assertThat(client.closedByServer()).isTrue();
            assertThat(proxy.accessLines(1).get(0)).contains("\" 200 " + file.length + " ")
                    .doesNotContain("incomplete");
        }
    }

    /** A head and 5 bytes of a 1 MB body, then nothing until the proxy hangs up. */
    static TestUpstream.Script headThenStall(CountDownLatch gone) {
        return (req, out, s) -> {
            out.write("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nfirst".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = Channels.newInputStream(s);
            if (in.read() == -1) {
                gone.countDown();
            }
            return false;
        };
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }
}
