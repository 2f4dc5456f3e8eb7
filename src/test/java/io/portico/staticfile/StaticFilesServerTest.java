package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Static locations behind the real server core on loopback: its codec, keep-alive, pipelining and error pages. */
class StaticFilesServerTest {
    @TempDir
    Path site;

    PorticoServer server;
    int port;
    byte[] big = new byte[600 * 1024];

    @BeforeEach
    void start() throws IOException {
        new Random(3).nextBytes(big);
        Files.write(site.resolve("big.bin"), big);
        Files.writeString(site.resolve("small.txt"), "small file");
        Files.createDirectories(site.resolve("docs"));
        Files.writeString(site.resolve("docs/index.html"), "<p>docs</p>");
        Files.writeString(site.resolve(".env"), "SECRET");
        server = TestServers.start("""
                locations = [
                  { path = "/static/", alias = "%s/" }
                ]
                """.formatted(site.toString().replace("\\", "/")));
        port = TestServers.port(server);
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void pipelinedSmallLargeAndConditionalRequestsOnOneConnection() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET /static/small.txt HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET /static/big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=100-199\r\n\r\n"
                    + "GET /static/small.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            Response small = c.read();
            assertThat(small.status()).isEqualTo(200);
            assertThat(small.text()).isEqualTo("small file");
            assertThat(small.header("content-type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(small.header("date")).endsWith("GMT");
            Response large = c.read();
            assertThat(large.status()).isEqualTo(200);
            assertThat(large.body()).isEqualTo(big);
            Response range = c.read();
            assertThat(range.status()).isEqualTo(206);
            assertThat(range.body()).isEqualTo(Arrays.copyOfRange(big, 100, 200));
            Response again = c.read();
            String etag = again.header("etag");
            c.send("GET /static/small.txt HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + etag + "\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(304);
            c.send("HEAD /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\n");
            Response head = c.read(true);
            assertThat(head.header("content-length")).isEqualTo(String.valueOf(big.length));
            c.send("GET /static/docs HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().header("location")).isEqualTo("/static/docs/");
            c.send("GET /static/docs/ HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("<p>docs</p>");
            c.send("GET /static/.env HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(404);
            c.send("GET /static/%2e%2e/x HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(404); // normalized to /x: not under /static/
            c.send("GET /static/a%2fb HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(400);
            c.send("POST /static/small.txt HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc");
            Response post = c.read();
            assertThat(post.status()).isEqualTo(405);
            assertThat(post.header("allow")).isEqualTo("GET, HEAD");
            c.send("GET /static/small.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().text()).isEqualTo("small file"); // still the same connection
        }
    }
}
