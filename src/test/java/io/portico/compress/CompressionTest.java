package io.portico.compress;

import static org.assertj.core.api.Assertions.assertThat;

import com.aayushatharva.brotli4j.Brotli4jLoader;
import com.aayushatharva.brotli4j.decoder.BrotliInputStream;
import com.github.luben.zstd.ZstdInputStream;
import com.sun.net.httpserver.HttpServer;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Compression through a real Portico: static files from a temp directory and responses of a real upstream (the
 * JDK's HTTP server) on loopback, read by the JDK's HTTP client (which sends no Accept-Encoding of its own and
 * decodes chunked framing), each compressed body decoded and compared with the original.
 */
class CompressionTest {
    @TempDir
    static Path dir;
    static HttpServer upstream;
    static PorticoServer server;
    static int port;
    static final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static byte[] page;
    static byte[] bigJs;
    static byte[] precompressedCss;

    @BeforeAll
    static void start() throws Exception {
        page = html(20_000, 1);
        bigJs = html(1_200_000, 2); // over the file cache's 256k: the large-file path, as chunks when compressed
        Files.write(dir.resolve("page.html"), page);
        Files.write(dir.resolve("big.js"), bigJs);
        Files.write(dir.resolve("small.html"), "<p>tiny</p>".getBytes(StandardCharsets.UTF_8));
        byte[] png = new byte[50_000];
        new Random(3).nextBytes(png);
        Files.write(dir.resolve("image.png"), png);
        Files.write(dir.resolve("big.bin"), bigJs); // application/octet-stream: not listed, sendfile as before
        Files.write(dir.resolve("style.css"), html(5_000, 4));
        precompressedCss = "/* the precompressed one */".getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve("style.css.gz"), gzip(precompressedCss));

        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        upstream.createContext("/app/page", x -> {
            x.getResponseHeaders().add("Content-Type", "text/html; charset=utf-8");
            x.getResponseHeaders().add("ETag", "\"v1\"");
            x.sendResponseHeaders(200, x.getRequestMethod().equals("HEAD") ? -1 : page.length);
            try (OutputStream o = x.getResponseBody()) {
                if (!x.getRequestMethod().equals("HEAD")) {
                    o.write(page);
                }
            }
        });
        upstream.createContext("/app/encoded", x -> {
            byte[] gz = gzip(page);
            x.getResponseHeaders().add("Content-Type", "text/html");
            x.getResponseHeaders().add("Content-Encoding", "gzip");
            x.sendResponseHeaders(200, gz.length);
            try (OutputStream o = x.getResponseBody()) {
                o.write(gz);
            }
        });
        upstream.createContext("/stream/chunked", x -> {
            x.getResponseHeaders().add("Content-Type", "application/json");
            x.sendResponseHeaders(200, 0); // chunked: the length is not known
            try (OutputStream o = x.getResponseBody()) {
                for (int i = 0; i < bigJs.length; i += 8192) {
                    o.write(bigJs, i, Math.min(8192, bigJs.length - i));
                    o.flush();
                }
            }
        });
        upstream.start();
        server = TestServers.start("upstreams { app { servers = [\"127.0.0.1:" + upstream.getAddress().getPort()
                + "\"] } }\n"
                + "locations = [\n"
                + " { path = \"/static/\", alias = \"" + dir + "/\", compression { enabled = true } },\n"
                + " { path = \"/off/\", alias = \"" + dir + "/\" },\n"
                + " { path = \"/app/\", proxy = app, compression { enabled = true } },\n"
                + " { path = \"/stream/\", proxy = app, streaming = true, compression { enabled = true } },\n"
                + " { path = \"/ret\", return = { status = 200, body = \"" + "r".repeat(400) + "\" },"
                + " compression { enabled = true, types = [text/plain], codings = [gzip] } }\n"
                + "]\n");
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.stop();
        }
        if (upstream != null) {
            upstream.stop(0);
        }
    }

    /** Text that compresses as HTML does (repeated words, some variation). */
    static byte[] html(int size, long seed) {
        Random r = new Random(seed);
        String[] words = {"<div class=\"item\">", "</div>", "<p>", "</p>", "portico", "compression", "lorem",
            "ipsum", "<a href=\"/x\">", "</a>", "\n"};
        StringBuilder sb = new StringBuilder("<!doctype html><html><body>");
        while (sb.length() < size) {
            sb.append(words[r.nextInt(words.length)]).append(r.nextInt(1000)).append(' ');
        }
        return sb.substring(0, size).getBytes(StandardCharsets.UTF_8);
    }

    static byte[] gzip(byte[] b) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(out)) {
            g.write(b);
        }
        return out.toByteArray();
    }

    static byte[] decode(String coding, byte[] body) throws IOException {
        InputStream in = new ByteArrayInputStream(body);
        InputStream decoded = switch (coding) {
            case "gzip" -> new GZIPInputStream(in);
            case "zstd" -> new ZstdInputStream(in);
            case "br" -> {
                Brotli4jLoader.ensureAvailability();
                yield new BrotliInputStream(in);
            }
            default -> throw new AssertionError(coding);
        };
        try (decoded) {
            return decoded.readAllBytes();
        }
    }

    static HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        return send("GET", path, headers);
    }

    static HttpResponse<byte[]> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "/static/page.html, gzip", "/static/page.html, br", "/static/page.html, zstd",
        "/app/page, gzip", "/app/page, br", "/app/page, zstd",
        "/static/big.js, gzip", "/static/big.js, br", "/static/big.js, zstd",
        "/stream/chunked, gzip", "/stream/chunked, br", "/stream/chunked, zstd"})
    void eachCodingThatLoadsDecodesToTheOriginal(String path, String coding) throws Exception {
        assertThat(ResponseCompression.available(
                io.portico.config.CompressionConfig.Coding.valueOf(coding.equals("br") ? "BR" : coding.toUpperCase())))
                .as("%s loads on this machine (linux-x86_64)", coding).isTrue();
        HttpResponse<byte[]> r = get(path, "Accept-Encoding", coding);
        byte[] original = path.contains("page") ? page : bigJs;
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(header(r, "Content-Encoding")).isEqualTo(coding);
        assertThat(header(r, "Vary")).isEqualToIgnoringCase("Accept-Encoding");
        assertThat(r.body().length).isLessThan(original.length / 2);
        assertThat(decode(coding, r.body())).isEqualTo(original);
    }

    @Test
    void aWholeBodyKeepsAKnownLengthAndItsEtagBecomesWeak() throws Exception {
        HttpResponse<byte[]> r = get("/static/page.html", "Accept-Encoding", "gzip");
        assertThat(header(r, "Content-Length")).isEqualTo(String.valueOf(r.body().length));
        assertThat(header(r, "Transfer-Encoding")).isNull();
        assertThat(header(r, "ETag")).startsWith("W/\"");
        assertThat(header(r, "Accept-Ranges")).isNull();
        HttpResponse<byte[]> plain = get("/static/page.html");
        assertThat(header(plain, "ETag")).isEqualTo(header(r, "ETag").substring(2));
        assertThat(header(get("/app/page", "Accept-Encoding", "gzip"), "ETag")).isEqualTo("W/\"v1\"");
    }

    @Test
    void theWeakEtagOfACompressedVariantRevalidatesTo304() throws Exception {
        String weak = header(get("/static/page.html", "Accept-Encoding", "gzip"), "ETag");
        HttpResponse<byte[]> r = get("/static/page.html", "Accept-Encoding", "gzip", "If-None-Match", weak);
        assertThat(r.statusCode()).isEqualTo(304);
        assertThat(header(r, "Content-Encoding")).isNull();
        assertThat(r.body()).isEmpty();
    }

    @Test
    void aStreamedBodyGoesChunkedWithoutALength() throws Exception {
        HttpResponse<byte[]> r = get("/static/big.js", "Accept-Encoding", "gzip");
        assertThat(header(r, "Content-Length")).isNull();
        assertThat(header(r, "Transfer-Encoding")).isEqualTo("chunked");
    }

    @ParameterizedTest(name = "Accept-Encoding: {0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "gzip, br, zstd | zstd", "gzip, br | br", "gzip | gzip", "x-gzip | gzip",
        "gzip;q=1, br;q=0.5, zstd;q=0.1 | gzip", "* | zstd", "*;q=0.5, gzip | gzip", "br;q=0, * | zstd",
        "zstd;q=0, br;q=0, * | gzip", "gzip;q=0 | identity", "identity | identity", "identity;q=1, gzip;q=0.5 | identity",
        "gzip, identity;q=0 | gzip", "deflate | identity", "gzip;q=oops | identity", "GZIP;Q=0.8 | gzip"})
    void negotiatesByQValuesWithTheServersOrderBetweenEquals(String accept, String expected) throws Exception {
        HttpResponse<byte[]> r = get("/app/page", "Accept-Encoding", accept);
        assertThat(header(r, "Vary")).isEqualToIgnoringCase("Accept-Encoding");
        if (expected.equals("identity")) {
            assertThat(header(r, "Content-Encoding")).isNull();
            assertThat(r.body()).isEqualTo(page);
            assertThat(header(r, "Content-Length")).isEqualTo(String.valueOf(page.length));
        } else {
            assertThat(header(r, "Content-Encoding")).isEqualTo(expected);
            assertThat(decode(expected, r.body())).isEqualTo(page);
        }
    }

    @Test
    void withoutAcceptEncodingNothingIsCompressedButVaryIsSaid() throws Exception {
        for (String path : new String[] {"/static/page.html", "/app/page", "/static/big.js"}) {
            HttpResponse<byte[]> r = get(path);
            assertThat(header(r, "Content-Encoding")).as(path).isNull();
            assertThat(header(r, "Vary")).as(path).isEqualToIgnoringCase("Accept-Encoding");
        }
    }

    @Test
    void rangesAreNeverCompressed() throws Exception {
        HttpResponse<byte[]> r = get("/static/page.html", "Accept-Encoding", "gzip", "Range", "bytes=0-99");
        assertThat(r.statusCode()).isEqualTo(206);
        assertThat(header(r, "Content-Encoding")).isNull();
        assertThat(r.body()).isEqualTo(java.util.Arrays.copyOf(page, 100));
        HttpResponse<byte[]> big = get("/static/big.js", "Accept-Encoding", "gzip", "Range", "bytes=10-19");
        assertThat(big.statusCode()).isEqualTo(206);
        assertThat(header(big, "Content-Encoding")).isNull();
        // A proxied 200 to a Range request (the upstream ignored it) is not compressed either.
        HttpResponse<byte[]> proxied = get("/app/page", "Accept-Encoding", "gzip", "Range", "bytes=0-9");
        assertThat(header(proxied, "Content-Encoding")).isNull();
        assertThat(proxied.body()).isEqualTo(page);
    }

    @Test
    void headGetsTheHeadersOfTheCompressedGetWithoutALengthOrBody() throws Exception {
        for (String path : new String[] {"/static/page.html", "/app/page", "/static/big.js"}) {
            HttpResponse<byte[]> r = send("HEAD", path, "Accept-Encoding", "gzip");
            assertThat(r.statusCode()).as(path).isEqualTo(200);
            assertThat(header(r, "Content-Encoding")).as(path).isEqualTo("gzip");
            assertThat(header(r, "Vary")).as(path).isEqualToIgnoringCase("Accept-Encoding");
            assertThat(header(r, "Content-Length")).as(path).isNull();
            assertThat(r.body()).as(path).isEmpty();
        }
        // The connection still frames the next response right.
        assertThat(decode("gzip", get("/app/page", "Accept-Encoding", "gzip").body())).isEqualTo(page);
    }

    @Test
    void anAlreadyEncodedUpstreamResponseGoesAsItCame() throws Exception {
        HttpResponse<byte[]> r = get("/app/encoded", "Accept-Encoding", "zstd, br, gzip");
        assertThat(header(r, "Content-Encoding")).isEqualTo("gzip");
        assertThat(r.body()).isEqualTo(gzip(page));
    }

    @Test
    void thePrecompressedFileWins() throws Exception {
        HttpResponse<byte[]> r = get("/static/style.css", "Accept-Encoding", "zstd, gzip");
        assertThat(header(r, "Content-Encoding")).isEqualTo("gzip");
        assertThat(decode("gzip", r.body())).isEqualTo(precompressedCss);
        assertThat(r.headers().allValues("Vary")).hasSize(1);
    }

    @Test
    void aBodyUnderMinLengthGoesAsItIs() throws Exception {
        HttpResponse<byte[]> r = get("/static/small.html", "Accept-Encoding", "gzip");
        assertThat(header(r, "Content-Encoding")).isNull();
        assertThat(header(r, "Vary")).isEqualToIgnoringCase("Accept-Encoding");
        assertThat(r.body()).isEqualTo("<p>tiny</p>".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void typesNotListedAndLocationsWithoutCompressionAreLeftAlone() throws Exception {
        HttpResponse<byte[]> png = get("/static/image.png", "Accept-Encoding", "gzip");
        assertThat(header(png, "Content-Encoding")).isNull();
        assertThat(header(png, "Vary")).isNull();
        HttpResponse<byte[]> bin = get("/static/big.bin", "Accept-Encoding", "gzip");
        assertThat(header(bin, "Content-Encoding")).isNull();
        assertThat(bin.body()).isEqualTo(bigJs);
        HttpResponse<byte[]> off = get("/off/page.html", "Accept-Encoding", "gzip");
        assertThat(header(off, "Content-Encoding")).isNull();
        assertThat(header(off, "Vary")).isNull();
    }

    @Test
    void aReturnIsCompressedByItsLocationsTypesAndCodings() throws Exception {
        HttpResponse<byte[]> r = get("/ret", "Accept-Encoding", "zstd, br, gzip");
        assertThat(header(r, "Content-Encoding")).isEqualTo("gzip");
        assertThat(new String(decode("gzip", r.body()), StandardCharsets.UTF_8)).isEqualTo("r".repeat(400));
    }

    @Test
    void overHttp2TheSameStageCompresses() throws Exception {
        // HTTP/2 streams share the exchange path; this server's listener speaks HTTP/1.1 only, so a second
        // server with h2c is started for curl's prior knowledge.
        PorticoServer h2 = TestServers.start("listen = [ { address = \"127.0.0.1:0\", http2 = on } ]\nlocations = [ { path = \"/static/\", alias = \""
                + dir + "/\", compression { enabled = true } },"
                + " { path = \"/app/\", proxy = \"http://127.0.0.1:" + upstream.getAddress().getPort() + "\","
                + " compression { enabled = true } } ]\n");
        try {
            int p = TestServers.port(h2);
            for (String path : new String[] {"/static/page.html", "/static/big.js", "/app/page"}) {
                Path out = dir.resolve("h2.out");
                Path head = dir.resolve("h2.head");
                Process c = new ProcessBuilder("curl", "-s", "--http2-prior-knowledge", "-H",
                        "Accept-Encoding: gzip", "-o", out.toString(), "-D", head.toString(),
                        "http://127.0.0.1:" + p + path).start();
                assertThat(c.waitFor(20, TimeUnit.SECONDS)).isTrue();
                String h = Files.readString(head).toLowerCase();
                assertThat(h).as(path).startsWith("http/2 200").contains("content-encoding: gzip")
                        .contains("vary: accept-encoding");
                assertThat(decode("gzip", Files.readAllBytes(out))).as(path)
                        .isEqualTo(path.contains("big") ? bigJs : page);
            }
        } finally {
            h2.stop();
        }
    }

    @Test
    void aClientLeavingMidBodyLeavesNothingHeld() throws Exception {
        // The leak detector (PARANOID, LeakReportExtension) fails the class if an encoder's buffers were kept.
        for (String path : new String[] {"/stream/chunked", "/static/big.js"}) {
            try (RawHttp c = new RawHttp(port)) {
                c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n");
                assertThat(c.readHead().header("content-encoding")).isEqualTo("gzip");
                assertThat(c.input().readNBytes(1000)).as("some of the body").hasSize(1000);
                c.socket().setSoLinger(true, 0); // a reset mid-body
            }
        }
        for (int i = 0; i < 3; i++) {
            System.gc();
            assertThat(decode("gzip", get("/stream/chunked", "Accept-Encoding", "gzip").body())).isEqualTo(bigJs);
        }
    }
}
