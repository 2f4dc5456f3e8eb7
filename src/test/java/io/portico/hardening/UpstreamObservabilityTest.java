package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RefusedPort;
import io.portico.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator sees of upstream failures: the access log lists every server tried with its time (nginx's
 * {@code $upstream_addr}, {@code $upstream_response_time}), its note is a quoted {@code upstream_error="..."}, never
 * exception text; failures and health changes reach the error log, at most a line a second per server.
 */
class UpstreamObservabilityTest {
    @TempDir
    Path dir;

    private PorticoServer start(String upstream) {
        return TestServers.start("access-log = \"" + dir.resolve("access.log") + "\"\n" + ProxiedPortico.LIMITS
                + "upstreams { app { " + upstream + ", connect-timeout = 300ms, read-timeout = 300ms } }\n"
                + "locations = [ { path = \"/\", proxy = app } ]\n");
    }

    /** The access log's lines once {@code n} are there (the file is flushed every second). */
    private List<String> accessLog(int n) {
        Path log = dir.resolve("access.log");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && Files.readAllLines(log).size() >= n);
        try {
            return Files.readAllLines(log);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void everyServerTriedIsListedWithItsTimeAndThePassiveDownIsLogged() throws Exception {
        try (RefusedPort refused = new RefusedPort(); RecordingUpstream good = RecordingUpstream.tcp();
                LogCapture errors = new LogCapture("io.portico.upstream")) {
            String first = "127.0.0.1:" + refused.port();
            PorticoServer server = start("servers = [{ address = \"" + first + "\", max-fails = 1 },"
                    + " { address = \"" + good.address() + "\", max-fails = 0 }], retries = 1");
            try {
                assertThat(Exchange.run(TestServers.port(server), "GET /a HTTP/1.1\r\nHost: x\r\n\r\n").status())
                        .isEqualTo(200);
                assertThat(accessLog(1).get(0)).matches(".*\" 200 .* uaddr=" + first.replace(".", "\\.") + ", "
                        + good.address().replace(".", "\\.") + " urt=\\d+\\.\\d{3}, \\d+\\.\\d{3}");
                assertThat(errors.lines()).containsExactly(
                        "WARN upstream app server " + first + ": connect refused",
                        "WARN upstream app server " + first
                                + ": out of rotation for fail-timeout 10000ms after 1 failure (max-fails)");
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void failuresAreQuotedNotesNeverExceptionText() throws Exception {
        try (RefusedPort refused = new RefusedPort(); RecordingUpstream h2 = RecordingUpstream.tcp()) {
            h2.behave((c, r) -> c.write("HTTP/2.0 200 OK\r\nContent-Length: 5\r\n\r\nhello"));
            PorticoServer server = TestServers.start("access-log = \"" + dir.resolve("access.log") + "\"\n"
                    + ProxiedPortico.LIMITS
                    + "upstreams { down { servers = [\"127.0.0.1:" + refused.port() + "\"], retries = 0 },"
                    + " h2 { servers = [\"" + h2.address() + "\"], retries = 0 } }\n"
                    + "locations = [ { path = \"/down/\", proxy = down }, { path = \"/h2/\", proxy = h2 } ]\n");
            try {
                int port = TestServers.port(server);
                assertThat(Exchange.run(port, "GET /down/ HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(502);
                assertThat(Exchange.run(port, "GET /h2/ HTTP/1.1\r\nHost: x\r\n\r\n").status()).isEqualTo(502);
                List<String> lines = accessLog(2);
                assertThat(lines.get(0)).matches(".* urt=\\d+\\.\\d{3} upstream_error=\"connect refused\"");
                assertThat(lines.get(1)).endsWith(" upstream_error=\"malformed response head:"
                        + " version 'HTTP/2.0' (expected: HTTP/1.1 or HTTP/1.0)\"");
                assertThat(lines).noneMatch(l -> l.contains("Exception") || l.contains("io.netty"));
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void aBurstOfFailuresIsOneErrorLogLineASecond() throws Exception {
        try (RefusedPort refused = new RefusedPort(); LogCapture errors = new LogCapture("io.portico.upstream")) {
            PorticoServer server = start("servers = [\"127.0.0.1:" + refused.port() + "\"], retries = 0");
            long start = System.nanoTime();
            try {
                for (int i = 0; i < 20; i++) {
                    assertThat(Exchange.run(TestServers.port(server), "GET / HTTP/1.1\r\nHost: x\r\n\r\n").status())
                            .isEqualTo(502);
                }
            } finally {
                server.stop();
            }
            long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
            assertThat(errors.lines()).isNotEmpty().hasSizeLessThanOrEqualTo((int) seconds + 1)
                    .allMatch(l -> l.startsWith("WARN upstream app server 127.0.0.1:" + refused.port()
                            + ": connect refused"));
        }
    }

    @Test
    void healthCheckTransitionsReachTheErrorLog() throws Exception {
        try (RecordingUpstream app = RecordingUpstream.tcp();
                LogCapture errors = new LogCapture("io.portico.upstream")) {
            app.behave((c, r) -> c.write("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n"));
            PorticoServer server = start("servers = [\"" + app.address() + "\"], health-check { path = \"/health\","
                    + " interval = 50ms, timeout = 300ms, rise = 1, fall = 1 }");
            try {
                String subject = "upstream app server " + app.address() + ": ";
                await().atMost(Duration.ofSeconds(10)).until(() -> errors.lines().contains(
                        "WARN " + subject + "down: health check failed (1 in a row, the last GET /health: 500)"));
                app.behave(RecordingUpstream::keepAliveOk);
                // Within a second of the first line: held back by the rate, then written, never lost.
                await().atMost(Duration.ofSeconds(10)).until(() -> errors.lines().contains(
                        "INFO " + subject + "up: health check passed (1 in a row, the last GET /health: 200)"));
            } finally {
                server.stop();
            }
        }
    }
}
