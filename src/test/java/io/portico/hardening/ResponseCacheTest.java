package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The response cache of a proxy location against a real upstream, through the real server: what is stored and
 * what never is, Vary, freshness from the upstream's headers, Age and X-Cache, 304s and HEADs from an entry, large
 * bodies streamed past it, one upstream request for concurrent misses, stale copies (while refreshing, on errors,
 * timeouts and 5xx), bypass, purge and the metrics.
 */
class ResponseCacheTest {
    private RecordingUpstream upstream;
    private PorticoServer server;
    private int port;

    private void start(String cache) throws IOException {
        start(cache, "read-timeout = 5s", "");
    }

    private void start(String cache, String upstreamExtra, String statusExtra) throws IOException {
        upstream = RecordingUpstream.tcp();
        server = TestServers.start(ProxiedPortico.LIMITS
                + "upstreams { app { servers = [{ address = \"" + upstream.address() + "\", max-fails = 0 }],"
                + " retries = 0, connect-timeout = 300ms, " + upstreamExtra + " } }\n"
                + "caches { pages { max-size = 1m } }\n"
                + "locations = [ { path = \"/\", proxy = app, cache { zone = pages, valid = { 200 = 1m }, "
                + cache + " } },\n"
                + " { path = \"/headers/\", proxy = app, cache { zone = pages, valid = {} } },\n"
                + " { exact = \"/status\", status = page " + statusExtra + " },\n"
                + " { exact = \"/metrics\", metrics = prometheus } ]\n");
        port = TestServers.port(server);
    }

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.stop();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    /** An upstream that answers 200 with {@code headers} (CRLF-terminated lines) and {@code body}. */
    private static RecordingUpstream.Behavior answer(String headers, String body) {
        return (c, r) -> c.write("HTTP/1.1 200 OK\r\n" + headers + "Content-Length: " + body.length() + "\r\n\r\n"
                + body);
    }

    private Response request(String method, String path, String... headers) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            StringBuilder b = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: x\r\n");
            for (String h : headers) {
                b.append(h).append("\r\n");
            }
            return c.send(b.append("\r\n").toString()).read(method.equals("HEAD"));
        }
    }

    private Response get(String path, String... headers) throws IOException {
        return request("GET", path, headers);
    }

    private int upstreamRequests() {
        return upstream.requests().size();
    }

    // ---- item 1 and 2: what is stored, for how long, and what the client sees

    @Test
    void aMissIsStoredAndTheNextRequestIsAHitWithAge() throws Exception {
        start("");
        upstream.behave(answer("Content-Type: text/plain\r\n", "hello"));
        Response miss = get("/a");
        Response hit = get("/a");
        assertThat(miss.status()).isEqualTo(200);
        assertThat(miss.header("x-cache")).isEqualTo("MISS");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(hit.text()).isEqualTo("hello");
        assertThat(hit.header("content-type")).isEqualTo("text/plain");
        assertThat(hit.header("age")).matches("[0-9]+");
        assertThat(upstreamRequests()).isEqualTo(1);
        assertThat(get("/b").header("x-cache")).as("another key").isEqualTo("MISS");
        assertThat(upstreamRequests()).isEqualTo(2);
    }

    @Test
    void responsesThatMustNotBeSharedAreNeverStored() throws Exception {
        start("");
        List<String> never = List.of("Set-Cookie: session=1\r\n", "Cache-Control: private\r\n",
                "Cache-Control: no-store\r\n", "Vary: *\r\n", "Cache-Control: max-age=0\r\n",
                "Cache-Control: no-cache\r\n", "Expires: Thu, 01 Jan 1970 00:00:00 GMT\r\n");
        int i = 0;
        for (String header : never) {
            upstream.reset();
            upstream.behave(answer(header, "private"));
            String path = "/never/" + i++;
            assertThat(get(path).header("x-cache")).as(header).isEqualTo("MISS");
            assertThat(get(path).header("x-cache")).as(header).isEqualTo("MISS");
            assertThat(upstreamRequests()).as(header).isEqualTo(2);
        }
    }

    @Test
    void aRequestWithAuthorizationIsNotServedFromTheCacheAndItsAnswerStoredOnlyWhenPublic() throws Exception {
        start("");
        upstream.behave(answer("", "for alice"));
        assertThat(get("/auth", "Authorization: Basic YWxpY2U6eA==").header("x-cache")).isEqualTo("BYPASS");
        assertThat(get("/auth").header("x-cache")).as("not stored from the authorized request").isEqualTo("MISS");
        upstream.behave(answer("Cache-Control: public\r\n", "for everyone"));
        assertThat(get("/pub", "Authorization: Basic YWxpY2U6eA==").header("x-cache")).isEqualTo("BYPASS");
        Response hit = get("/pub");
        assertThat(hit.header("x-cache")).isEqualTo("HIT");
        assertThat(hit.text()).isEqualTo("for everyone");
    }

    @Test
    void varyKeysTheEntryOnTheNamedRequestHeaders() throws Exception {
        start("");
        upstream.behave((c, r) -> {
            String lang = r.head().contains("Accept-Language: fr") ? "bonjour" : "hello";
            c.write("HTTP/1.1 200 OK\r\nVary: Accept-Language\r\nContent-Length: " + lang.length() + "\r\n\r\n"
                    + lang);
        });
        assertThat(get("/v", "Accept-Language: en").text()).isEqualTo("hello");
        Response fr = get("/v", "Accept-Language: fr");
        assertThat(fr.header("x-cache")).isEqualTo("MISS");
        assertThat(fr.text()).isEqualTo("bonjour");
        Response en = get("/v", "Accept-Language: en");
        assertThat(en.header("x-cache")).isEqualTo("HIT");
        assertThat(en.text()).isEqualTo("hello");
        assertThat(get("/v", "Accept-Language: fr").text()).isEqualTo("bonjour");
        assertThat(upstreamRequests()).isEqualTo(2);
    }

    @Test
    void theUpstreamsCacheControlAndExpiresGiveTheLifetime() throws Exception {
        start("");
        // /headers/ has no valid: only a lifetime the upstream gives stores anything.
        upstream.behave(answer("", "no lifetime"));
        get("/headers/none");
        assertThat(get("/headers/none").header("x-cache")).isEqualTo("MISS");
        upstream.behave(answer("Cache-Control: max-age=60\r\n", "max-age"));
        get("/headers/max-age");
        assertThat(get("/headers/max-age").header("x-cache")).isEqualTo("HIT");
        upstream.behave(answer("Cache-Control: max-age=0, s-maxage=60\r\n", "s-maxage"));
        get("/headers/s-maxage");
        assertThat(get("/headers/s-maxage").header("x-cache")).as("s-maxage wins").isEqualTo("HIT");
        upstream.behave(answer("Expires: Thu, 01 Jan 2099 00:00:00 GMT\r\n", "expires"));
        get("/headers/expires");
        assertThat(get("/headers/expires").header("x-cache")).isEqualTo("HIT");
        upstream.behave(answer("Cache-Control: max-age=60\r\nAge: 61\r\n", "too old"));
        get("/headers/old");
        assertThat(get("/headers/old").header("x-cache")).as("the upstream's Age counts").isEqualTo("MISS");
    }

    @Test
    void withoutHonorCacheControlValidDecidesButPrivateStillNeverStores() throws Exception {
        start("honor-cache-control = false");
        upstream.behave(answer("Cache-Control: max-age=0, no-cache\r\n", "micro"));
        get("/ignored");
        assertThat(get("/ignored").header("x-cache")).isEqualTo("HIT");
        upstream.behave(answer("Cache-Control: private, max-age=60\r\n", "mine"));
        get("/private");
        assertThat(get("/private").header("x-cache")).isEqualTo("MISS");
    }

    @Test
    void aHitIsCompressedLikeAMissAndTheEntryKeepsTheUpstreamsBytes() throws Exception {
        upstream = RecordingUpstream.tcp();
        server = TestServers.start(ProxiedPortico.LIMITS
                + "upstreams { app { servers = [\"" + upstream.address() + "\"], read-timeout = 5s } }\n"
                + "caches { pages { max-size = 1m } }\n"
                + "locations = [ { path = \"/\", proxy = app, cache { zone = pages, valid = { 200 = 1m } },"
                + " compression { enabled = true, codings = [gzip] } } ]\n");
        port = TestServers.port(server);
        String page = "<p>" + "cached and compressed ".repeat(100) + "</p>";
        upstream.behave(answer("Content-Type: text/html\r\n", page));
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
                .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + port + "/z");
        for (String expected : List.of("MISS", "HIT")) {
            java.net.http.HttpResponse<byte[]> r = http.send(java.net.http.HttpRequest.newBuilder(uri)
                    .header("Accept-Encoding", "gzip").build(), java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertThat(r.headers().firstValue("x-cache")).hasValue(expected);
            assertThat(r.headers().firstValue("content-encoding")).as(expected).hasValue("gzip");
            assertThat(new String(new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(r.body()))
                    .readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(page);
        }
        java.net.http.HttpResponse<String> identity = http.send(java.net.http.HttpRequest.newBuilder(uri).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(identity.headers().firstValue("x-cache")).hasValue("HIT");
        assertThat(identity.headers().firstValue("content-encoding")).as("stored as the upstream sent it").isEmpty();
        assertThat(identity.body()).isEqualTo(page);
        assertThat(upstreamRequests()).isEqualTo(1);
    }

    @Test
    void conditionalRequestsAreAnswered304FromTheEntry() throws Exception {
        start("");
        upstream.behave(answer("ETag: \"v1\"\r\nLast-Modified: Tue, 01 Dec 2026 10:00:00 GMT\r\n", "body"));
        Response first = get("/c", "If-None-Match: \"v1\"");
        assertThat(first.status()).as("the fill asks for the whole response").isEqualTo(200);
        assertThat(upstream.requests().get(0).head()).doesNotContainIgnoringCase("if-none-match");
        Response inm = get("/c", "If-None-Match: \"v0\", W/\"v1\"");
        assertThat(inm.status()).isEqualTo(304);
        assertThat(inm.header("etag")).isEqualTo("\"v1\"");
        assertThat(inm.header("x-cache")).isEqualTo("HIT");
        assertThat(inm.body()).isEmpty();
        assertThat(get("/c", "If-Modified-Since: Tue, 01 Dec 2026 10:00:00 GMT").status()).isEqualTo(304);
        assertThat(get("/c", "If-Modified-Since: Tue, 01 Dec 2026 09:00:00 GMT").status()).isEqualTo(200);
        assertThat(get("/c", "If-None-Match: \"v2\"").status()).isEqualTo(200);
        assertThat(upstreamRequests()).isEqualTo(1);
    }

    @Test
    void aHeadIsAnsweredFromTheCachedGet() throws Exception {
        start("");
        upstream.behave(answer("", "twelve bytes"));
        get("/h");
        Response head = request("HEAD", "/h");
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("x-cache")).isEqualTo("HIT");
        assertThat(head.header("content-length")).isEqualTo("12");
        assertThat(upstreamRequests()).isEqualTo(1);
        // and on the same connection the next response is read where it should be (no body after the HEAD)
        try (RawHttp c = new RawHttp(port)) {
            c.send("HEAD /h HTTP/1.1\r\nHost: x\r\n\r\nGET /h HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read(true).header("x-cache")).isEqualTo("HIT");
            assertThat(c.read().text()).isEqualTo("twelve bytes");
        }
    }

    @Test
    void aBodyLargerThanMaxObjectSizeIsStreamedToTheClientAndNotStored() throws Exception {
        start("max-object-size = 1k");
        java.util.concurrent.atomic.AtomicReference<CountDownLatch> firstPartRead =
                new java.util.concurrent.atomic.AtomicReference<>();
        String part = "a".repeat(2048);
        upstream.behave((c, r) -> {
            c.write("HTTP/1.1 200 OK\r\nContent-Length: " + (3 * part.length()) + "\r\n\r\n" + part);
            try {
                // The rest only once the client has the first part: a cache that held the body whole would hang.
                firstPartRead.get().await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            c.write(part + part);
        });
        for (int round = 0; round < 2; round++) {
            firstPartRead.set(new CountDownLatch(1));
            try (RawHttp c = new RawHttp(port)) {
                c.setTimeout(3000);
                Response head = c.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n").readHead();
                assertThat(head.header("x-cache")).isEqualToIgnoringCase("miss");
                assertThat(head.header("content-length")).isEqualTo("6144");
                assertThat(c.input().readNBytes(2048)).hasSize(2048);
                firstPartRead.get().countDown();
                assertThat(c.input().readNBytes(4096)).hasSize(4096);
            }
        }
        assertThat(upstreamRequests()).as("not stored: both went upstream").isEqualTo(2);
    }

    // ---- item 3: protect the app

    @Test
    void aThousandConcurrentMissesOnOneKeyMakeOneUpstreamRequest() throws Exception {
        start("lock-timeout = 30s", "read-timeout = 30s", "");
        CountDownLatch release = new CountDownLatch(1);
        upstream.behave((c, r) -> {
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer("", "rendered once").answer(c, r);
        });
        List<RawHttp> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 1000; i++) {
                RawHttp c = new RawHttp(port);
                clients.add(c);
                c.setTimeout(30_000);
                c.send("GET /popular HTTP/1.1\r\nHost: x\r\n\r\n");
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> metric("portico_cache_requests_total",
                    "result=\"coalesced\"") == 999);
            release.countDown();
            int hits = 0;
            for (RawHttp c : clients) {
                Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("rendered once");
                hits += "HIT".equals(r.header("x-cache")) ? 1 : 0;
            }
            assertThat(hits).isEqualTo(999);
            assertThat(upstreamRequests()).isEqualTo(1);
        } finally {
            release.countDown();
            for (RawHttp c : clients) {
                c.close();
            }
        }
    }

    @Test
    void waitersGoUpstreamThemselvesAfterLockTimeout() throws Exception {
        start("lock-timeout = 200ms", "read-timeout = 10s", "");
        CountDownLatch release = new CountDownLatch(1);
        upstream.behave((c, r) -> {
            int n = upstream.requests().size();
            if (n == 1) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            answer("", "n" + n).answer(c, r);
        });
        try (RawHttp first = new RawHttp(port)) {
            first.setTimeout(10_000);
            first.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> upstreamRequests() == 1);
            Response second = get("/slow"); // waits 200ms for the first, then goes upstream itself
            assertThat(second.header("x-cache")).isEqualTo("MISS");
            assertThat(second.text()).isEqualTo("n2");
            release.countDown();
            assertThat(first.read().text()).isEqualTo("n1");
        } finally {
            release.countDown();
        }
        assertThat(upstreamRequests()).isEqualTo(2);
    }

    @Test
    void whenTheFirstClientGoesAwayItsUpstreamResponseStillFillsTheEntryForTheWaiters() throws Exception {
        start("lock-timeout = 30s", "read-timeout = 10s", "");
        CountDownLatch release = new CountDownLatch(1);
        upstream.behave((c, r) -> {
            int n = upstream.requests().size();
            if (n == 1) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            answer("", "n" + n).answer(c, r);
        });
        RawHttp waiter = null;
        try {
            try (RawHttp first = new RawHttp(port)) {
                first.send("GET /leader HTTP/1.1\r\nHost: x\r\n\r\n");
                await().until(() -> upstreamRequests() == 1);
                waiter = new RawHttp(port);
                waiter.setTimeout(5_000);
                waiter.send("GET /leader HTTP/1.1\r\nHost: x\r\n\r\n");
                await().until(() -> metric("portico_cache_requests_total", "result=\"coalesced\"") == 1);
            } // the first client leaves while its request is upstream
            release.countDown();
            Response r = waiter.read();
            assertThat(r.header("x-cache")).isEqualTo("HIT");
            assertThat(r.text()).isEqualTo("n1");
            assertThat(upstreamRequests()).isEqualTo(1);
        } finally {
            release.countDown();
            if (waiter != null) {
                waiter.close();
            }
        }
    }

    /** The entry's lifetime has to pass: time itself is what these tests are about. */
    private static void outlive(Duration lifetime) {
        await().pollDelay(lifetime.plusMillis(100)).atMost(lifetime.plusSeconds(5)).until(() -> true);
    }

    @Test
    void aStaleEntryIsServedWhileOneBackgroundRefreshRuns() throws Exception {
        start("valid = { 200 = 300ms }, use-stale = [updating]");
        upstream.behave(answer("", "v1"));
        assertThat(get("/s").text()).isEqualTo("v1");
        outlive(Duration.ofMillis(300));
        CountDownLatch release = new CountDownLatch(1);
        upstream.behave((c, r) -> {
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            answer("", "v2").answer(c, r);
        });
        Response stale = get("/s");
        assertThat(stale.header("x-cache")).isEqualTo("STALE");
        assertThat(stale.text()).isEqualTo("v1");
        Response updating = get("/s");
        assertThat(updating.header("x-cache")).isEqualTo("UPDATING");
        assertThat(updating.text()).isEqualTo("v1");
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> get("/s").text().equals("v2"));
        assertThat(get("/s").header("x-cache")).isEqualTo("HIT");
        assertThat(upstreamRequests()).as("one background refresh").isEqualTo(2);
    }

    @Test
    void aStaleEntryStandsInForA500AnUpstreamThatResetsAndOneThatRefuses() throws Exception {
        start("valid = { 200 = 300ms }, use-stale = [error, http_500]");
        upstream.behave(answer("", "good"));
        get("/e");
        outlive(Duration.ofMillis(300));
        upstream.behave((c, r) -> c.write("HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\nbad!"));
        Response on500 = get("/e");
        assertThat(on500.status()).isEqualTo(200);
        assertThat(on500.header("x-cache")).isEqualTo("STALE");
        assertThat(on500.text()).isEqualTo("good");
        upstream.behave((c, r) -> c.reset());
        Response onReset = get("/e");
        assertThat(onReset.status()).isEqualTo(200);
        assertThat(onReset.header("x-cache")).isEqualTo("STALE");
        assertThat(onReset.text()).isEqualTo("good");
        upstream.close(); // the app is down: connections refused
        Response onRefused = get("/e");
        assertThat(onRefused.status()).isEqualTo(200);
        assertThat(onRefused.header("x-cache")).isEqualTo("STALE");
        // Without a stale copy the error goes to the client as before.
        assertThat(get("/never-stored").status()).isEqualTo(502);
    }

    @Test
    void aStatusUseStaleDoesNotListGoesToTheClientThoughAStaleCopyIsAtHand() throws Exception {
        start("valid = { 200 = 300ms }, use-stale = [http_500]");
        upstream.behave(answer("", "good"));
        get("/s");
        outlive(Duration.ofMillis(300));
        upstream.behave((c, r) -> c.write("HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy"));
        Response on503 = get("/s");
        assertThat(on503.status()).isEqualTo(503);
        assertThat(on503.text()).isEqualTo("busy");
        upstream.behave((c, r) -> c.write("HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\nbad!"));
        assertThat(get("/s").header("x-cache")).isEqualTo("STALE");
    }

    @Test
    void aStaleEntryStandsInForATimeout() throws Exception {
        start("valid = { 200 = 300ms }, use-stale = [timeout]", "read-timeout = 300ms", "");
        upstream.behave(answer("", "good"));
        get("/t");
        outlive(Duration.ofMillis(300));
        upstream.behave((c, r) -> { }); // never answers
        Response r = get("/t");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("x-cache")).isEqualTo("STALE");
        assertThat(r.text()).isEqualTo("good");
    }

    // ---- item 4: control

    @Test
    void aBypassCookieNeitherReadsNorFillsTheCache() throws Exception {
        start("bypass = [\"$cookie_session\", \"$http_x_refresh\"]");
        upstream.behave(answer("", "page"));
        assertThat(get("/k", "Cookie: theme=dark; session=abc").header("x-cache")).isEqualTo("BYPASS");
        assertThat(get("/k", "X-Refresh: 1").header("x-cache")).isEqualTo("BYPASS");
        assertThat(get("/k").header("x-cache")).as("a bypass stores nothing").isEqualTo("MISS");
        assertThat(get("/k", "Cookie: session=abc").header("x-cache")).as("and reads nothing").isEqualTo("BYPASS");
        assertThat(get("/k", "Cookie: session=0").header("x-cache")).as("\"0\" is no bypass").isEqualTo("HIT");
        assertThat(upstreamRequests()).isEqualTo(4);
    }

    @Test
    void purgeByKeyAndByPrefixThroughTheStatusLocation() throws Exception {
        start("");
        upstream.behave(answer("", "page"));
        get("/p");
        get("/q/1");
        get("/q/2");
        assertThat(get("/p").header("x-cache")).isEqualTo("HIT");
        Response purged = request("PURGE", "/status?zone=pages&key=httpx/p");
        assertThat(purged.status()).isEqualTo(200);
        assertThat(purged.text()).isEqualTo("{\"purged\":1}\n");
        assertThat(get("/p").header("x-cache")).isEqualTo("MISS");
        assertThat(request("PURGE", "/status?prefix=httpx/q/").text()).isEqualTo("{\"purged\":2}\n");
        assertThat(get("/q/1").header("x-cache")).isEqualTo("MISS");
        assertThat(request("PURGE", "/status").status()).isEqualTo(400);
        assertThat(request("PURGE", "/status?zone=nope&key=x").status()).isEqualTo(404);
        Response status = get("/status?format=json");
        assertThat(status.status()).as("the status page still answers").isEqualTo(200);
        assertThat(status.text()).contains("\"caches\":{\"pages\":{\"hits\":1,\"misses\":5,");
        assertThat(get("/status").text()).contains("<h2>Response caches</h2>");
    }

    @Test
    void purgeIsRefusedToAClientTheStatusLocationDoesNotAllow() throws Exception {
        start("", "read-timeout = 5s", ", allow = [\"10.0.0.0/8\"]");
        upstream.behave(answer("", "page"));
        get("/p");
        assertThat(request("PURGE", "/status?key=httpx/p").status()).isEqualTo(403);
        assertThat(get("/p").header("x-cache")).isEqualTo("HIT");
    }

    @Test
    void theMetricsCountHitsMissesStaleAndBytes() throws Exception {
        start("");
        upstream.behave(answer("", "counted"));
        get("/m");
        get("/m");
        get("/m");
        assertThat(metric("portico_cache_requests_total", "result=\"hit\"")).isEqualTo(2);
        assertThat(metric("portico_cache_requests_total", "result=\"miss\"")).isEqualTo(1);
        assertThat(metric("portico_cache_requests_total", "result=\"stale\"")).isEqualTo(0);
        assertThat(metric("portico_cache_stored_total", "zone=\"pages\"")).isEqualTo(1);
        assertThat(metric("portico_cache_bytes", "zone=\"pages\"")).isGreaterThan(7).isLessThan(1 << 20);
        assertThat(metric("portico_cache_evictions_total", "zone=\"pages\"")).isEqualTo(0);
    }

    /** The value of the sample of {@code family} whose labels contain {@code label}. */
    private long metric(String family, String label) throws IOException {
        String text = get("/metrics").text();
        Matcher m = Pattern.compile("(?m)^" + family + "\\{([^}]*)\\} (\\S+)$").matcher(text);
        while (m.find()) {
            if (m.group(1).contains(label)) {
                return (long) Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no " + family + " sample with " + label + " in\n" + text);
    }
}
