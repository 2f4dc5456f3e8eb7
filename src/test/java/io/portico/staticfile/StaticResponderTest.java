package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.portico.config.TargetConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StaticResponderTest {
    static final long MTIME = 1_700_000_000L;

    @TempDir
    Path tmp;

    Path site;
    Harness harness = new Harness();
    Responder responder;

    @BeforeEach
    void site() throws IOException {
        site = Files.createDirectories(tmp.resolve("site"));
        write("hello.txt", "Hello, static world!\n");
        write("docs/index.html", "<h1>docs</h1>");
        Files.createDirectories(site.resolve("empty"));
        write(".env", "SECRET=1");
        write("outside.txt", "x");
        Files.writeString(tmp.resolve("secret.txt"), "secret");
        responder = harness.responder("/", Harness.target(site), name -> null);
    }

    @AfterEach
    void noLeftovers() {
        assertThat(harness.channel.finishAndReleaseAll()).isFalse();
        harness.files.close();
    }

    void write(String name, String content) throws IOException {
        Path file = site.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        Files.setLastModifiedTime(file, FileTime.fromMillis(MTIME * 1000));
    }

    static TargetConfig.Static with(TargetConfig.Static t, List<String> tryFiles, boolean autoindex,
            boolean precompressed) {
        return new TargetConfig.Static(t.dir(), t.alias(), t.index(), tryFiles, autoindex, t.expires(),
                t.cacheControl(), precompressed, t.allowDotfiles());
    }

    @Test
    void servesASmallFileWithValidatorsFromOneFullResponse() {
        Harness.Response r = harness.get(responder, "/hello.txt");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("Hello, static world!\n");
        assertThat(r.kinds()).containsExactly("full");
        assertThat(r.headers().get("Content-Type")).isEqualTo("text/plain; charset=utf-8");
        assertThat(r.headers().getInt("Content-Length")).isEqualTo(21);
        assertThat(r.headers().get("ETag")).isEqualTo("\"" + Long.toHexString(MTIME) + "-15\"");
        assertThat(r.headers().get("Last-Modified")).isEqualTo("Tue, 14 Nov 2023 22:13:20 GMT");
        assertThat(r.headers().get("Accept-Ranges")).isEqualTo("bytes");
        assertThat(r.headers().contains("Vary")).isFalse();
    }

    @Test
    void aCachedHitIsAnsweredWithoutLeavingTheEventLoop() {
        harness.get(responder, "/hello.txt");
        harness.open(responder, HttpMethod.GET, "/hello.txt", false);
        assertThat(harness.tasks).isEmpty();
        assertThat(harness.channel.hasPendingTasks()).isFalse();
        Harness.Response r = harness.read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).startsWith("Hello");
    }

    /** A path served before (and so remembered by the loop) still follows the file's changes as the cache sees them. */
    @Test
    void aRememberedPathIsServedAnewOnceTheCacheHasSeenTheFileChange() throws IOException {
        assertThat(harness.get(responder, "/hello.txt").text()).isEqualTo("Hello, static world!\n");
        assertThat(harness.get(responder, "/hello.txt").text()).isEqualTo("Hello, static world!\n");
        write("hello.txt", "changed");
        harness.nanos.addAndGet(Duration.ofMillis(600).toNanos()); // past half of revalidate (1 s)
        harness.get(responder, "/hello.txt"); // from the cache, while its refresh stats the file
        Harness.Response r = harness.get(responder, "/hello.txt");
        assertThat(r.text()).isEqualTo("changed");
        assertThat(r.headers().getInt("Content-Length")).isEqualTo(7);
    }

    @Test
    void aRememberedPathStillRefusesMethodsOtherThanGetAndHead() {
        assertThat(harness.get(responder, "/hello.txt").status()).isEqualTo(200);
        assertThat(harness.get(responder, HttpMethod.POST, "/hello.txt").status()).isEqualTo(405);
        assertThat(harness.get(responder, HttpMethod.HEAD, "/hello.txt").body()).isEmpty();
        assertThat(harness.get(responder, "/hello.txt", "If-None-Match",
                harness.get(responder, "/hello.txt").headers().get("ETag")).status()).isEqualTo(304);
    }

    @Test
    void aMissGoesOffTheLoopAndComesBack() {
        harness.open(responder, HttpMethod.GET, "/hello.txt", false);
        assertThat(harness.tasks).isNotEmpty();
        assertThat((Object) harness.channel.readOutbound()).isNull();
        harness.drain();
        assertThat(harness.read().status()).isEqualTo(200);
    }

    @Test
    void headHasTheLengthButNoBody() {
        Harness.Response r = harness.get(responder, HttpMethod.HEAD, "/hello.txt");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.body()).isEmpty();
        assertThat(r.headers().getInt("Content-Length")).isEqualTo(21);
    }

    @Test
    void conditionalRequests() {
        String etag = harness.get(responder, "/hello.txt").headers().get("ETag");
        Harness.Response notModified = harness.get(responder, "/hello.txt", "If-None-Match", etag);
        assertThat(notModified.status()).isEqualTo(304);
        assertThat(notModified.body()).isEmpty();
        assertThat(notModified.headers().get("ETag")).isEqualTo(etag);
        assertThat(harness.get(responder, "/hello.txt", "If-Match", "\"nope\"").status()).isEqualTo(412);
        assertThat(harness.get(responder, "/hello.txt", "If-Modified-Since", "garbage").status()).isEqualTo(200);
    }

    @Test
    void ranges() {
        Harness.Response partial = harness.get(responder, "/hello.txt", "Range", "bytes=7-12");
        assertThat(partial.status()).isEqualTo(206);
        assertThat(partial.text()).isEqualTo("static");
        assertThat(partial.headers().get("Content-Range")).isEqualTo("bytes 7-12/21");
        assertThat(partial.headers().getInt("Content-Length")).isEqualTo(6);

        Harness.Response unsatisfiable = harness.get(responder, "/hello.txt", "Range", "bytes=100-");
        assertThat(unsatisfiable.status()).isEqualTo(416);
        assertThat(unsatisfiable.headers().get("Content-Range")).isEqualTo("bytes */21");

        assertThat(harness.get(responder, "/hello.txt", "Range", "bytes=0-1,3-4").status()).isEqualTo(200);
        assertThat(harness.get(responder, "/hello.txt", "Range", "bytes=x").status()).isEqualTo(200);
        assertThat(harness.get(responder, "/hello.txt", "Range", "bytes=0-1", "If-Range", "\"old\"").status())
                .isEqualTo(200);
    }

    @Test
    void onlyGetAndHead() {
        Harness.Response r = harness.get(responder, HttpMethod.POST, "/hello.txt");
        assertThat(r.status()).isEqualTo(405);
        assertThat(r.headers().get("Allow")).isEqualTo("GET, HEAD");
    }

    @Test
    void missingDotfilesAndTraversal() {
        assertThat(harness.get(responder, "/nope.txt").status()).isEqualTo(404);
        assertThat(harness.get(responder, "/.env").status()).isEqualTo(404);
        assertThat(harness.get(responder, "/../secret.txt").status()).isEqualTo(400);
        assertThat(harness.get(responder, "/%2e%2e/secret.txt").status()).isEqualTo(400);
        assertThat(harness.get(responder, "/hello.txt/").status()).isEqualTo(404);
    }

    @Test
    void symlinkOutOfTheRootIsNotFound() throws IOException {
        Files.createSymbolicLink(site.resolve("escape.txt"), tmp.resolve("secret.txt"));
        Files.createSymbolicLink(site.resolve("inside.txt"), site.resolve("hello.txt"));
        assertThat(harness.get(responder, "/escape.txt").status()).isEqualTo(404);
        Harness.Response inside = harness.get(responder, "/inside.txt");
        assertThat(inside.status()).isEqualTo(200);
        assertThat(inside.text()).startsWith("Hello");
    }

    @Test
    void directories() throws IOException {
        Harness.Response redirect = harness.get(responder, "/docs?x=1");
        assertThat(redirect.status()).isEqualTo(301);
        assertThat(redirect.headers().get("Location")).isEqualTo("/docs/?x=1");
        assertThat(harness.get(responder, "//evil.example").status()).isEqualTo(404);

        Harness.Response index = harness.get(responder, "/docs/");
        assertThat(index.status()).isEqualTo(200);
        assertThat(index.text()).isEqualTo("<h1>docs</h1>");
        assertThat(index.headers().get("Content-Type")).isEqualTo("text/html; charset=utf-8");

        assertThat(harness.get(responder, "/empty/").status()).isEqualTo(403);
    }

    @Test
    void redirectUsesTheNormalizedPath() throws IOException {
        Files.createDirectories(site.resolve("evil.example"));
        Harness.Response redirect = harness.get(responder, "//evil.example");
        assertThat(redirect.status()).isEqualTo(301);
        assertThat(redirect.headers().get("Location")).isEqualTo("/evil.example/");
    }

    @Test
    void autoindexListsEscapedNames() throws IOException {
        write("empty/<b>&.txt", "x");
        Files.createDirectories(site.resolve("empty/sub"));
        Responder listing = harness.responder("/", with(Harness.target(site), List.of(), true, false), n -> null);
        Harness.Response r = harness.get(listing, "/empty/");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().get("Content-Type")).isEqualTo("text/html; charset=utf-8");
        assertThat(r.text()).contains("&lt;b&gt;&amp;.txt", "href=\"%3Cb%3E%26.txt\"", "href=\"sub/\"")
                .doesNotContain("<b>&");
        assertThat(harness.get(listing, "/").text()).doesNotContain(".env");
    }

    @Test
    void aliasReplacesTheLocationPrefix() {
        TargetConfig.Static t = Harness.target(site);
        TargetConfig.Static alias = new TargetConfig.Static(site, true, t.index(), List.of(), false,
                Optional.of(Duration.ofHours(1)), Optional.empty(), false, false);
        Responder aliased = harness.responder("/static/", alias, n -> null);
        Harness.Response r = harness.get(aliased, "/static/hello.txt");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headers().get("Cache-Control")).isEqualTo("max-age=3600");
        assertThat(r.headers().get("Expires")).isEqualTo("Sun, 29 Nov 2026 13:00:00 GMT");
        assertThat(harness.get(aliased, "/static/../secret.txt").status()).isEqualTo(404);
        assertThat(harness.get(aliased, "/static").headers().get("Location")).isEqualTo("/static/");
    }

    @Test
    void anExactLocationCanAliasAFile() {
        TargetConfig.Static t = Harness.target(site.resolve("hello.txt"));
        TargetConfig.Static file = new TargetConfig.Static(t.dir(), true, t.index(), List.of(), false,
                Optional.empty(), Optional.empty(), false, false);
        Responder exact = harness.files.responder(new io.portico.config.LocationConfig(
                new io.portico.config.LocationConfig.Match(io.portico.config.LocationConfig.Match.Kind.EXACT,
                        "/greeting.txt"), file, List.of(), List.of(), "test"), file, n -> null);
        Harness.Response r = harness.get(exact, "/greeting.txt");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).startsWith("Hello");
        assertThat(r.headers().get("Content-Type")).isEqualTo("text/plain; charset=utf-8");
    }

    @Test
    void tryFilesFallsBackToTheNamedUpstreamWithTheBody() {
        RecordingUpstream app = new RecordingUpstream();
        Responder spa = harness.responder("/",
                with(Harness.target(site), List.of("$uri", "$uri/index.html", "@app"), false, false),
                name -> name.equals("app") ? app : null);

        assertThat(harness.get(spa, "/docs").text()).isEqualTo("<h1>docs</h1>");
        assertThat(harness.get(spa, "/hello.txt").status()).isEqualTo(200);

        Exchange exchange = harness.open(spa, HttpMethod.POST, "/api/items", false);
        exchange.onContent(new DefaultHttpContent(Unpooled.copiedBuffer("a=1", StandardCharsets.UTF_8)));
        exchange.onContent(new DefaultLastHttpContent(Unpooled.copiedBuffer("&b=2", StandardCharsets.UTF_8)));
        harness.drain();
        assertThat(app.requests).containsExactly("POST /api/items");
        assertThat(app.body).isEqualTo("a=1&b=2");
        assertThat(app.ended).isTrue();
        assertThat(harness.get(spa, "/.env").head()).isNull(); // the app got it, and wrote nothing
        assertThat(app.requests).hasSize(2);
    }

    @Test
    void tryFilesWithAStatusFallback() {
        Responder r = harness.responder("/",
                with(Harness.target(site), List.of("$uri", "$uri/", "=418"), false, false), n -> null);
        assertThat(harness.get(r, "/nope").status()).isEqualTo(418);
        assertThat(harness.get(r, "/docs/").text()).isEqualTo("<h1>docs</h1>");
        assertThat(harness.get(r, "/empty/").status()).isEqualTo(418);
        assertThat(harness.get(r, "/.env").status()).isEqualTo(404); // hidden, not "missing"
    }

    @Test
    void bodyOfAServedRequestIsReleased() {
        Exchange exchange = harness.open(responder, HttpMethod.GET, "/hello.txt", false);
        HttpContent part = new DefaultHttpContent(Unpooled.copiedBuffer("junk", StandardCharsets.UTF_8));
        LastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("!", StandardCharsets.UTF_8));
        exchange.onContent(part);
        harness.drain();
        exchange.onContent(last);
        assertThat(part.refCnt()).isZero();
        assertThat(last.refCnt()).isZero();
        assertThat(harness.read().status()).isEqualTo(200);
    }

    @Test
    void clientGoneBeforeTheStatCompletesGetsNothing() {
        Exchange exchange = harness.open(responder, HttpMethod.GET, "/hello.txt", false);
        HttpContent part = new DefaultHttpContent(Unpooled.copiedBuffer("junk", StandardCharsets.UTF_8));
        exchange.onContent(part);
        exchange.onClientClosed();
        assertThat(part.refCnt()).isZero();
        harness.drain();
        assertThat((Object) harness.channel.readOutbound()).isNull();
    }

    @Test
    void aChangedFileIsSeenAfterRevalidate() throws IOException {
        assertThat(harness.get(responder, "/hello.txt").text()).startsWith("Hello");
        Files.writeString(site.resolve("hello.txt"), "changed");
        assertThat(harness.get(responder, "/hello.txt").text()).startsWith("Hello"); // within revalidate
        harness.nanos.addAndGet(Duration.ofMillis(1001).toNanos());
        Harness.Response r = harness.get(responder, "/hello.txt");
        assertThat(r.text()).isEqualTo("changed");
        assertThat(r.headers().getInt("Content-Length")).isEqualTo(7);
    }

    @Test
    void aHotFileIsStattedAgainAheadOfExpiryWhileItsRequestsAreAnswered() throws IOException {
        assertThat(harness.get(responder, "/hello.txt").text()).startsWith("Hello");
        harness.nanos.addAndGet(Duration.ofMillis(600).toNanos()); // past half of revalidate (1s)
        Files.writeString(site.resolve("hello.txt"), "changed");
        Exchange exchange = harness.open(responder, HttpMethod.GET, "/hello.txt", false);
        exchange.onContent(LastHttpContent.EMPTY_LAST_CONTENT);
        harness.channel.runPendingTasks();
        assertThat(harness.read().text()).startsWith("Hello"); // from the cache, without waiting for the stat
        assertThat(harness.tasks).isNotEmpty(); // the stat, queued
        harness.drain();
        assertThat(harness.get(responder, "/hello.txt").text()).isEqualTo("changed"); // revalidate has not passed
    }

    @Test
    void revalidateZeroStatsEveryRequest() throws IOException {
        try (Harness always = new Harness(256 * 1024, io.portico.config.StaticConfig.FollowSymlinks.NEVER,
                Duration.ZERO)) {
            Responder r = always.responder("/", Harness.target(site), n -> null);
            assertThat(always.get(r, "/hello.txt").text()).startsWith("Hello");
            Files.writeString(site.resolve("hello.txt"), "now");
            assertThat(always.get(r, "/hello.txt").text()).isEqualTo("now");
            Files.createSymbolicLink(site.resolve("link.txt"), site.resolve("hello.txt"));
            assertThat(always.get(r, "/link.txt").status()).isEqualTo(404); // NEVER follows, even inside
        }
    }

    @Test
    void aNewFileIsSeenAfterRevalidate() throws IOException {
        assertThat(harness.get(responder, "/new.txt").status()).isEqualTo(404);
        write("new.txt", "new");
        assertThat(harness.get(responder, "/new.txt").status()).isEqualTo(404); // negative entry, like nginx
        harness.nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(harness.get(responder, "/new.txt").text()).isEqualTo("new");
    }

    @Test
    void aFileThatShrankAfterTheStatIsRestatted() throws IOException {
        harness.get(responder, HttpMethod.HEAD, "/hello.txt"); // metadata cached, bytes not
        Files.writeString(site.resolve("hello.txt"), "short");
        Harness.Response r = harness.get(responder, "/hello.txt");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.text()).isEqualTo("short");
        assertThat(r.headers().getInt("Content-Length")).isEqualTo(5);
    }

    /** A named upstream that records what it was handed and answers nothing. */
    static final class RecordingUpstream implements Responder {
        final List<String> requests = new ArrayList<>();
        final StringBuilder bodyText = new StringBuilder();
        String body;
        boolean ended;

        @Override
        public Exchange open(ClientExchange client, HttpRequest request) {
            requests.add(request.method() + " " + request.uri());
            return content -> {
                bodyText.append(content.content().toString(StandardCharsets.UTF_8));
                if (content instanceof LastHttpContent) {
                    ended = true;
                    body = bodyText.toString();
                }
                content.release();
            };
        }
    }
}
