package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The access log line is a contract (log shippers parse it): nginx "combined" plus rt=, uaddr= and urt=. */
class AccessLogLineTest {

    @Test
    void aLineIsNginxCombinedPlusTimes(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("access.log");
        PorticoServer server = TestServers.start("access-log = \"" + log + "\"\n"
                + "locations = [ { exact = \"/ok\", return = { status = 200, body = \"ok\" } } ]");
        List<String> lines;
        try (RawHttp c = new RawHttp(TestServers.port(server))) {
            // (A quote in the target is refused now, 400: the User-Agent carries the one that must be escaped.)
            c.send("GET /ok?a=b HTTP/1.1\r\nHost: x\r\nUser-Agent: test/\"1.0\"\r\nReferer: http://r/\r\n\r\n")
                    .read();
            // Buffered, but flushed every second: the line is in the file while the server runs.
            await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && !Files.readAllLines(log).isEmpty());
            lines = Files.readAllLines(log);
        } finally {
            server.stop();
        }
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).matches("127\\.0\\.0\\.1 - - \\[\\d{2}/[A-Z][a-z]{2}/\\d{4}:\\d{2}:\\d{2}:\\d{2}"
                + " [+-]\\d{4}] "
                + "\"GET /ok\\?a=b HTTP/1\\.1\" 200 2 \"http://r/\" \"test/\\\\x221\\.0\\\\x22\""
                + " rt=\\d+\\.\\d{3} uaddr=- urt=-");
    }

    @Test
    void secondsHaveThreeDecimalsLikeNginxRequestTime() {
        assertThat(seconds(0)).isEqualTo("0.000");
        assertThat(seconds(4_200_000)).isEqualTo("0.004");
        assertThat(seconds(12_000_000)).isEqualTo("0.012");
        assertThat(seconds(123_000_000)).isEqualTo("0.123");
        assertThat(seconds(61_234_999_999L)).isEqualTo("61.234");
        assertThat(seconds(-5)).isEqualTo("0.000");
    }

    @Test
    void quotesBackslashesAndControlBytesAreEscapedAsNginxDoes() {
        assertThat(RequestContextHandler.appendEscaped(new StringBuilder(), "a\"b\\c\u0001d\u00e9 ok").toString())
                .isEqualTo("a\\x22b\\x5Cc\\x01d\\xE9 ok");
    }

    private static String seconds(long nanos) {
        return RequestContextHandler.appendSeconds(new StringBuilder(), nanos).toString();
    }
}
