package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * No spelling of a path walks past a location's access rules or rate limit, whatever answers the location (static
 * files, a proxy, a fixed return, the metrics): the request is matched on the one normalized path that also serves
 * it, and what reaches the app is that path, never the client's spelling. Every protected location here refuses
 * the loopback client (allow 10.0.0.0/8, or deny 127.0.0.0/8), or limits it to one request a minute.
 */
class RouteBypassTest {
    static Path root;
    static RecordingUpstream app;
    static PorticoServer server;
    static int port;

    @BeforeAll
    static void start() throws Exception {
        root = Files.createTempDirectory("portico-bypass");
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/index.html"), "protected file");
        Files.writeString(root.resolve("index.html"), "limited file");
        Files.writeString(root.resolve("open.txt"), "open file");
        app = RecordingUpstream.tcp();
        String upstream = "upstreams { app { servers = [{ address = \"" + app.address() + "\", max-fails = 0 }],"
                + " retries = 0 } }\n";
        server = TestServers.start(ProxiedPortico.LIMITS + upstream
                + "rate-limits { login { rate = 1r/m, burst = 0 }, api { rate = 1r/m, burst = 0 } }\n"
                + "locations = [\n"
                + " { path = \"/sub/\", root = \"" + root + "\", allow = [\"10.0.0.0/8\"] }\n"
                + " { exact = \"/index.html\", root = \"" + root + "\", rate-limit = login }\n"
                + " { path = \"/files/\", alias = \"" + root + "/\" }\n"
                + " { path = \"/admin/\", proxy = app, allow = [\"10.0.0.0/8\"] }\n"
                + " { path = \"/api/login\", proxy = app, rate-limit = api }\n"
                + " { path = \"/ret/\", return = { status = 200, body = \"secret return\" },"
                + " deny = [\"127.0.0.0/8\"] }\n"
                + " { exact = \"/metrics\", metrics = prometheus, deny = [\"127.0.0.0/8\"] }\n"
                + " { path = \"/raw/\", proxy = app, merge-slashes = false }\n"
                + " { path = \"/\", proxy = app }\n"
                + "]\n");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        app.close();
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @BeforeEach
    void reset() {
        app.reset();
    }

    static Response get(String target) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").read();
        }
    }

    /** Spellings of {@code path} (which starts with '/'): doubled slashes, dot segments, encoded letters. */
    static List<String> spellings(String path) {
        String first = path.substring(1, 2);
        String encoded = "%" + Integer.toHexString(first.charAt(0));
        return List.of(path, "/" + path, "/." + path, "/x/.." + path, "/" + encoded + path.substring(2),
                "/" + encoded.toUpperCase() + path.substring(2), "/%2e" + path, "/x/%2E%2E" + path,
                path.replace("/", "//"), "/./" + path.substring(1).replace("/", "/./"));
    }

    static Stream<String> protectedPaths() {
        return Stream.of("/sub/index.html", "/admin/secret", "/ret/x", "/metrics")
                .flatMap(p -> spellings(p).stream());
    }

    @ParameterizedTest
    @MethodSource("protectedPaths")
    void accessRulesHoldForEverySpelling(String target) throws IOException {
        Response r = get(target);
        assertThat(r.status()).as(target).isEqualTo(403);
        assertThat(r.text()).doesNotContain("protected file", "secret return", "portico_");
        assertThat(app.requests()).as("nothing reaches the app for " + target).isEmpty();
    }

    @Test
    void aRateLimitHoldsForEverySpellingOfAStaticPath() throws IOException {
        List<String> all = spellings("/index.html");
        assertThat(get(all.get(0)).status()).isEqualTo(200);
        for (String target : all) {
            assertThat(get(target).status()).as(target).isEqualTo(429);
        }
    }

    @Test
    void aRateLimitHoldsForEverySpellingOfAProxiedPath() throws IOException {
        List<String> all = spellings("/api/login");
        assertThat(get(all.get(0)).status()).isEqualTo(200);
        for (String target : all) {
            assertThat(get(target).status()).as(target).isEqualTo(429);
        }
        assertThat(app.requests()).hasSize(1);
    }

    @ParameterizedTest
    @MethodSource("climbs")
    void aPathAboveTheRootIsRefusedAndNeverForwarded(String target) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).as(target).isEqualTo(400);
            assertThat(c.closedByServer()).as("closed after 400 for " + target).isTrue();
        }
        assertThat(app.requests()).isEmpty();
    }

    static Stream<String> climbs() {
        return Stream.of("/../secret.txt", "/..", "/a/../../secret.txt", "/%2e%2e/secret.txt", "/.%2E/secret.txt",
                "/files/../../secret.txt", "/x/..%2F..%2Fsecret.txt", "/a%zz", "/a%00");
    }

    @Test
    void theAppGetsTheNormalizedPathAndTheQueryAsSent() throws IOException {
        Response r = get("//x/./y/%7Ez/../%41b%2fc?a=%2e%2e&b=//c");
        assertThat(r.status()).isEqualTo(200);
        assertThat(app.requests()).singleElement()
                .satisfies(req -> assertThat(req.requestLine()).isEqualTo("GET /x/y/Ab%2Fc?a=%2e%2e&b=//c HTTP/1.1"));
    }

    @Test
    void anAbsoluteFormTargetIsNormalizedToo() throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET http://x//admin/./secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .read();
            assertThat(r.status()).isEqualTo(403);
        }
        assertThat(app.requests()).isEmpty();
    }

    @Test
    void mergeSlashesOffForwardsEmptySegmentsButMatchesOnTheMergedPath() throws IOException {
        assertThat(get("/raw//a/./b//c?q").status()).isEqualTo(200);
        assertThat(get("//raw/x").status()).isEqualTo(200);
        assertThat(app.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /raw//a/b//c?q HTTP/1.1", "GET //raw/x HTTP/1.1");
    }

    @Test
    void aDeniedClientIsNotInvitedToSendItsBody() throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("POST //admin/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    + "Expect: 100-continue\r\n\r\n").read();
            assertThat(r.status()).as("403 first, no 100 Continue").isEqualTo(403);
        }
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                    + "Expect: 100-continue\r\n\r\n").read();
            assertThat(r.status()).as("an allowed one is").isEqualTo(100);
            assertThat(c.send("hello").read().status()).isEqualTo(200);
        }
        assertThat(app.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("POST /upload HTTP/1.1");
    }

    @Test
    void staticFilesAreServedFromTheNormalizedPath() throws IOException {
        assertThat(get("/files//./open.txt").text()).isEqualTo("open file");
        assertThat(get("//files/%6fpen.txt").text()).isEqualTo("open file");
        assertThat(get("/files/x/../open.txt").text()).isEqualTo("open file");
    }
}
