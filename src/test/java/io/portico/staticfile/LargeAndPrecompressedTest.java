package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LargeAndPrecompressedTest {
    @TempDir
    Path site;

    /** Files over 1 KiB are not kept in memory here. */
    Harness harness = new Harness(1024, StaticConfig.FollowSymlinks.INSIDE_ROOT);
    Responder responder;
    String big;

    @BeforeEach
    void site() throws IOException {
        big = "0123456789".repeat(500);
        Files.writeString(site.resolve("big.txt"), big);
        Files.writeString(site.resolve("app.js"), "console.log('plain');");
        Files.writeString(site.resolve("app.js.gz"), "GZ");
        Files.writeString(site.resolve("app.js.br"), "BROTLI");
        Files.writeString(site.resolve("only.css"), "body{}");
        TargetConfig.Static t = Harness.target(site);
        TargetConfig.Static precompressed = new TargetConfig.Static(site, false, t.index(), List.of(), false,
                Optional.empty(), Optional.of("public, immutable"), true, false);
        responder = harness.responder("/", precompressed, n -> null);
    }

    @AfterEach
    void noLeftovers() {
        assertThat(harness.channel.finishAndReleaseAll()).isFalse();
        harness.files.close();
    }

    @Test
    void aLargeFileGoesBySendfileAndEndsWithLastContent() {
        Harness.Response r = harness.get(responder, "/big.txt");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.kinds()).containsExactly("head", "region", "last");
        assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo(big);
        assertThat(r.headers().getInt("Content-Length")).isEqualTo(5000);
    }

    @Test
    void aRangeOfALargeFile() {
        Harness.Response r = harness.get(responder, "/big.txt", "Range", "bytes=4990-");
        assertThat(r.status()).isEqualTo(206);
        assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo("0123456789");
        assertThat(r.headers().get("Content-Range")).isEqualTo("bytes 4990-4999/5000");
    }

    @Test
    void underTlsALargeFileGoesInChunks() {
        // as the server's TLS listeners have it (ClientChannelInitializer): files go as chunks, not by sendfile
        harness.channel.pipeline().addFirst(new ChunkedWriteHandler());
        Exchange exchange = harness.open(responder, HttpMethod.GET, "/big.txt", true);
        exchange.onContent(LastHttpContent.EMPTY_LAST_CONTENT);
        harness.drain();
        Harness.Response r = harness.read();
        assertThat(r.kinds()).startsWith("head", "content").endsWith("content", "last")
                .containsOnly("head", "content", "last");
        assertThat(new String(r.body(), StandardCharsets.US_ASCII)).isEqualTo(big);
        Exchange again = harness.open(responder, HttpMethod.GET, "/big.txt", true, "Range", "bytes=0-9");
        again.onContent(LastHttpContent.EMPTY_LAST_CONTENT);
        harness.drain();
        assertThat(harness.read().text()).isEqualTo("0123456789");
    }

    static long openFiles(Path file) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        Assumptions.assumeTrue(Files.isDirectory(fds), "needs /proc");
        try (var links = Files.list(fds)) {
            return links.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(file.toRealPath());
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    @Test
    void theFileIsClosedAfterSendingAndWhenTheClientLeavesDuringTheOpen() throws IOException {
        Path file = site.resolve("big.txt");
        harness.get(responder, "/big.txt");
        assertThat(openFiles(file)).isZero(); // the region was released after the transfer

        Exchange exchange = harness.open(responder, HttpMethod.GET, "/big.txt", false);
        assertThat(harness.tasks).isNotEmpty(); // the open is pending
        harness.tasks.poll().run(); // the executor opens the file...
        exchange.onClientClosed(); // ...while the client goes away
        harness.drain();
        assertThat((Object) harness.channel.readOutbound()).isNull();
        assertThat(openFiles(file)).isZero();
    }

    @Test
    void clientGoneWhileTheFileOpensWritesNothing() {
        Exchange exchange = harness.open(responder, HttpMethod.GET, "/big.txt", false);
        harness.drain(); // stat done, open queued or done: the walk is complete
        harness.read();
        Exchange second = harness.open(responder, HttpMethod.GET, "/big.txt", false);
        assertThat(harness.tasks).isNotEmpty(); // the open is pending
        second.onClientClosed();
        harness.drain();
        assertThat((Object) harness.channel.readOutbound()).isNull();
        exchange.onClientClosed();
    }

    @Test
    void servesTheBestAcceptedVariantWithTheOriginalType() {
        Harness.Response gzip = harness.get(responder, "/app.js", "Accept-Encoding", "gzip, deflate");
        assertThat(gzip.text()).isEqualTo("GZ");
        assertThat(gzip.headers().get("Content-Encoding")).isEqualTo("gzip");
        assertThat(gzip.headers().get("Content-Type")).isEqualTo("text/javascript; charset=utf-8");
        assertThat(gzip.headers().get("Vary")).isEqualTo("Accept-Encoding");
        assertThat(gzip.headers().get("Cache-Control")).isEqualTo("public, immutable");

        Harness.Response br = harness.get(responder, "/app.js", "Accept-Encoding", "gzip, br");
        assertThat(br.text()).isEqualTo("BROTLI");
        assertThat(br.headers().get("Content-Encoding")).isEqualTo("br");
        assertThat(br.headers().get("ETag")).isNotEqualTo(gzip.headers().get("ETag")).endsWith("-br\"");
        assertThat(gzip.headers().get("ETag")).endsWith("-gzip\"");
        assertThat(harness.get(responder, "/app.js", "Accept-Encoding", "gzip", "If-None-Match",
                gzip.headers().get("ETag")).status()).isEqualTo(304);
        assertThat(harness.get(responder, "/app.js", "Accept-Encoding", "br", "If-None-Match",
                gzip.headers().get("ETag")).status()).isEqualTo(200);

        Harness.Response plain = harness.get(responder, "/app.js", "Accept-Encoding", "gzip;q=0, br;q=0");
        assertThat(plain.text()).isEqualTo("console.log('plain');");
        assertThat(plain.headers().contains("Content-Encoding")).isFalse();
        assertThat(plain.headers().get("Vary")).isEqualTo("Accept-Encoding");
    }

    @Test
    void aVariantAddedLaterIsSeenAfterRevalidateAndAnEscapingOneNever() throws IOException {
        assertThat(harness.get(responder, "/only.css", "Accept-Encoding", "gzip").headers().contains("Vary")).isFalse();
        Files.writeString(site.resolve("only.css.gz"), "GZCSS");
        Path outside = Files.writeString(site.getParent().resolve(site.getFileName() + "-secret.br"), "SECRET");
        Files.createSymbolicLink(site.resolve("only.css.br"), outside);
        harness.nanos.addAndGet(java.time.Duration.ofSeconds(2).toNanos());
        Harness.Response r = harness.get(responder, "/only.css", "Accept-Encoding", "br, gzip");
        assertThat(r.text()).isEqualTo("GZCSS");
        assertThat(r.headers().get("Content-Encoding")).isEqualTo("gzip");
        Files.delete(outside);
    }

    @Test
    void aFileWithoutVariantsHasNoVary() {
        Harness.Response r = harness.get(responder, "/only.css", "Accept-Encoding", "gzip, br");
        assertThat(r.text()).isEqualTo("body{}");
        assertThat(r.headers().contains("Vary")).isFalse();
        assertThat(r.headers().contains("Content-Encoding")).isFalse();
    }
}
