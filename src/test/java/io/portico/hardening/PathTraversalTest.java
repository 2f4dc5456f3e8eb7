package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Path traversal through the whole server onto a static location: a secret file sits next to the root (and a
 * symlink inside the root points at it), and no spelling of a path (encoded, double-encoded, backslashes, NUL,
 * overlong UTF-8, dot segments, symlink) ever returns a byte of it. Each request gets a 4xx (or a file that is
 * inside the root), and a normal request is still served on a new connection.
 */
class PathTraversalTest {
    static final String SECRET = "TOP-SECRET-" + "5f2c9a";
    static Path base;
    static PorticoServer server;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        base = Files.createTempDirectory("portico-traversal");
        Path root = Files.createDirectories(base.resolve("www"));
        Files.writeString(base.resolve("secret.txt"), SECRET);
        Files.writeString(base.resolve("www-secret.txt"), SECRET); // a sibling whose name starts like the root
        Files.writeString(root.resolve("index.html"), "public index");
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/page.txt"), "public page");
        Files.createSymbolicLink(root.resolve("escape.txt"), base.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("escape-dir"), base);
        server = TestServers.start(ProxiedPortico.LIMITS
                + "locations = [ { path = \"/static/\", alias = \"" + root + "/\" },"
                + " { path = \"/\", root = \"" + root + "/\" } ]");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        try (Stream<Path> files = Files.walk(base)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static Stream<String> attacks() {
        Stream<String> tails = Stream.of(
                "../secret.txt", "..%2fsecret.txt", "..%2Fsecret.txt", "%2e%2e/secret.txt", "%2e%2e%2fsecret.txt",
                ".%2e/secret.txt", "%2e./secret.txt", "%252e%252e%252fsecret.txt", "..%252fsecret.txt",
                "..\\secret.txt", "..%5csecret.txt", "..%5Csecret.txt", "%2e%2e%5csecret.txt", "..%255csecret.txt",
                "sub/../../secret.txt", "sub/%2e%2e/%2e%2e/secret.txt", "sub/..%2f..%2fsecret.txt",
                "..;/secret.txt", "../www-secret.txt", "..%00/secret.txt", "secret.txt%00.html", "%00../secret.txt",
                "..%c0%afsecret.txt", "%c0%ae%c0%ae/secret.txt", "%c0%ae%c0%ae%c0%afsecret.txt",
                "..%e0%80%afsecret.txt",
                "..%c1%9csecret.txt", "%ef%bc%8e%ef%bc%8e/secret.txt", "..%u2215secret.txt", "....//secret.txt",
                "...//secret.txt", ".../secret.txt", "sub/./../../secret.txt", "//../secret.txt", "%2f..%2fsecret.txt",
                "escape.txt", "escape-dir/secret.txt", "escape-dir/www/index.html", "escape-dir%2fsecret.txt",
                "sub/..%2f..%2f..%2f..%2f..%2f..%2fetc/passwd", "../../../../../../etc/passwd");
        return tails.flatMap(t -> Stream.of("/static/" + t, "/" + t));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("attacks")
    void neverServesAByteFromOutsideTheRoot(String target) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            String body = new String(r.body(), StandardCharsets.ISO_8859_1);
            assertThat(body).doesNotContain(SECRET).doesNotContain("root:");
            // refused, not found, or (for a spelling that stays inside) a public file
            assertThat(r.status() >= 400 && r.status() < 500 || body.startsWith("public"))
                    .as(r.status() + " " + body).isTrue();
        }
        assertThat(normal()).isEqualTo("public page");
    }

    @Test
    void theSecretIsReallyThere() throws Exception {
        // the control: the corpus would see the secret if a path reached it
        assertThat(Files.readString(base.resolve("secret.txt"))).isEqualTo(SECRET);
        assertThat(Files.readString(base.resolve("www/escape.txt"))).isEqualTo(SECRET);
    }

    private static String normal() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            return c.send("GET /static/sub/page.txt HTTP/1.1\r\nHost: x\r\n\r\n").read().text();
        }
    }
}
