package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.portico.server.ListenException;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.RefusedPort;
import io.portico.testing.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Zones kept in a real Redis, through real Portico servers on loopback: two instances draw on one bucket per
 * client, delays and rejections are nginx's, and a Redis that goes away is decided by on-store-failure, promptly.
 */
class SharedZoneTest {
    private static final AtomicInteger ZONES = new AtomicInteger();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<PorticoServer> servers = new ArrayList<>();
    private RedisServer ownRedis;

    @AfterEach
    void stop() {
        servers.forEach(PorticoServer::close);
        if (ownRedis != null) {
            ownRedis.stop();
        }
    }

    @Test
    void twoInstancesShareEachClientsBucket() throws Exception {
        String conf = config(RedisServer.shared().uri(), "rate = 1r/m, burst = 5, nodelay = true");
        int a = start(conf);
        int b = start(conf);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            statuses.add(get(i % 2 == 0 ? a : b, "/").statusCode());
        }
        assertThat(statuses).as("burst 5 + 1 between both instances, in request order")
                .containsExactly(204, 204, 204, 204, 204, 204, 429, 429, 429, 429);
        HttpResponse<String> rejected = get(b, "/");
        assertThat(rejected.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Long.parseLong(seconds)).isBetween(55L, 60L));
    }

    @Test
    void aRejectionByAnotherZoneGivesTheSharedChargeBack() throws Exception {
        String shared = "z" + ZONES.incrementAndGet();
        int port = start("rate-limits {\n"
                + shared + " { rate = 1r/m, burst = 5, nodelay = true, store = \"" + RedisServer.shared().uri()
                + "\" }\n"
                + " strict { rate = 1r/m, burst = 0, nodelay = true }\n}\n"
                + "locations = [ { path = \"/both/\", return = 204, rate-limit = [" + shared + ", strict] },"
                + " { path = \"/\", return = 204, rate-limit = " + shared + " } ]");
        assertThat(get(port, "/both/").statusCode()).isEqualTo(204);
        for (int i = 0; i < 3; i++) {
            assertThat(get(port, "/both/").statusCode()).as("strict rejects; the shared zone is not charged")
                    .isEqualTo(429);
        }
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(get(port, "/").statusCode());
        }
        assertThat(statuses).as("5 of the shared bucket's 6 left").containsExactly(204, 204, 204, 204, 204, 429);
    }

    @Test
    void changedSettingsStartFreshBucketsInsteadOfKeepingTheOldOnes() throws Exception {
        String name = "z" + ZONES.incrementAndGet();
        String uri = RedisServer.shared().uri();
        String zone = "rate-limits { " + name + " { rate = 1r/m, burst = %d, nodelay = true, store = \"" + uri
                + "\" } }\nlocations = [ { path = \"/\", return = 204, rate-limit = " + name + " } ]";
        int before = start(String.format(zone, 1));
        assertThat(List.of(get(before, "/").statusCode(), get(before, "/").statusCode(), get(before, "/").statusCode()))
                .containsExactly(204, 204, 429);
        int after = start(String.format(zone, 3)); // the same zone, restarted with a larger burst
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            statuses.add(get(after, "/").statusCode());
        }
        assertThat(statuses).as("a bucket of 4 for the new settings").containsExactly(204, 204, 204, 204, 429);
        assertThat(get(before, "/").statusCode()).as("the old settings keep their own bucket").isEqualTo(429);
    }

    @Test
    void aStoreFoundThroughSentinelWorksAsOneNamedDirectly() throws Exception {
        ownRedis = RedisServer.start();
        RedisServer sentinel = RedisServer.sentinel(ownRedis, "portico-test");
        try {
            String uri = "redis-sentinel://127.0.0.1:" + sentinel.port() + "#portico-test";
            String name = "z" + ZONES.incrementAndGet();
            String zone = "rate-limits { " + name + " { rate = 1r/m, burst = 1, nodelay = true, store = \"%s\" } }\n"
                    + "locations = [ { path = \"/\", return = 204, rate-limit = " + name + " } ]";
            int viaSentinel = start(String.format(zone, uri));
            int direct = start(String.format(zone, ownRedis.uri()));
            assertThat(List.of(get(viaSentinel, "/").statusCode(), get(direct, "/").statusCode(),
                    get(viaSentinel, "/").statusCode())).as("one bucket of 2, in the Redis the sentinel names")
                    .containsExactly(204, 204, 429);
        } finally {
            sentinel.stop();
        }
    }

    @Test
    void delayedRequestsWaitOnTheLoopAndTheExcessIsRejected() throws Exception {
        int port = start(config(RedisServer.shared().uri(), "rate = 10r/s, burst = 2"));
        long start = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            sent.add(http.sendAsync(request(port, "/"), HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        long slowestAdmitted = 0;
        for (CompletableFuture<HttpResponse<String>> response : sent) {
            HttpResponse<String> r = response.get(10, TimeUnit.SECONDS);
            statuses.add(r.statusCode());
            if (r.statusCode() == 204) {
                slowestAdmitted = Math.max(slowestAdmitted, System.nanoTime() - start);
            }
        }
        assertThat(statuses).containsExactlyInAnyOrder(204, 204, 204, 429);
        assertThat(TimeUnit.NANOSECONDS.toMillis(slowestAdmitted)).as("the second excess request waited 200 ms")
                .isGreaterThanOrEqualTo(190);
    }

    @Test
    void bodiesAndPipelinedRequestsWaitInOrderWhileRedisDecides() throws Exception {
        int port = start(config(RedisServer.shared().uri(), "rate = 1r/m, burst = 1, nodelay = true"));
        String body = "x".repeat(10_000);
        String post = "POST / HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
        String get = "GET / HTTP/1.1\r\nHost: t\r\n\r\n";
        try (RawHttp raw = new RawHttp(port)) {
            raw.send(post + get + post + get); // one write: each waits behind the one before
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                statuses.add(raw.read().status());
            }
            assertThat(statuses).as("two tokens; the rejected POST's body is drained, not read as a request")
                    .containsExactly(204, 204, 429, 429);
            raw.send(get);
            assertThat(raw.read().status()).as("the connection is still in step").isEqualTo(429);
        }
    }

    @Test
    void aSlowStoreIsDecidedAtTheTimeoutAndAClientThatLeftLosesNothing() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 5, nodelay = true, store-timeout = 200ms");
        ownRedis.freeze(2);
        try (RawHttp leaving = new RawHttp(port)) { // held while Redis sleeps, gone before it answers
            leaving.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
        }
        long start = System.nanoTime();
        assertThat(get(port, "/").statusCode()).as("the instance's own bucket, after store-timeout").isEqualTo(204);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(150L, 1_500L);
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).isNotEqualTo("0");
    }

    /**
     * A request decided by on-store-failure at store-timeout while Redis was frozen: the charge Redis makes when it
     * wakes (the script is atomic: it charges as it decides) is given back, so the bucket is as if Redis never saw
     * the request.
     */
    @Test
    void aChargeRedisMakesAfterTheTimeoutIsGivenBack() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 1, nodelay = true, store-timeout = 200ms,"
                + " on-store-failure = allow");
        ownRedis.freeze(1);
        assertThat(get(port, "/").statusCode()).as("on-store-failure = allow, after store-timeout").isEqualTo(204);
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).isEqualTo("1");
        Thread.sleep(1_500); // Redis awake: it has run the charge, and the give-back after it
        assertThat(get(port, "/").statusCode()).as("the second of Redis's 2, the late charge given back")
                .isEqualTo(204);
        assertThat(get(port, "/").statusCode()).isEqualTo(429);
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).isEqualTo("1");
    }

    @Test
    void eachZoneOnAStoreKeepsItsOwnTimeout() throws Exception {
        ownRedis = RedisServer.start();
        String quick = "z" + ZONES.incrementAndGet();
        String patient = "z" + ZONES.incrementAndGet();
        String store = "store = \"" + ownRedis.uri() + "\"";
        int port = start("rate-limits {\n"
                + quick + " { rate = 1r/m, burst = 5, nodelay = true, store-timeout = 200ms, " + store + " }\n"
                + patient + " { rate = 1r/m, burst = 5, nodelay = true, store-timeout = 5s, " + store + " }\n}\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus },"
                + " { path = \"/quick/\", return = 204, rate-limit = " + quick + " },"
                + " { path = \"/patient/\", return = 204, rate-limit = " + patient + " } ]");
        assertThat(get(port, "/quick/").statusCode()).isEqualTo(204);
        assertThat(get(port, "/patient/").statusCode()).isEqualTo(204);
        ownRedis.freeze(1);
        long start = System.nanoTime();
        CompletableFuture<HttpResponse<String>> waiting =
                http.sendAsync(request(port, "/patient/"), HttpResponse.BodyHandlers.ofString());
        assertThat(get(port, "/quick/").statusCode()).isEqualTo(204);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("its own 200 ms")
                .isBetween(150L, 900L);
        assertThat(waiting.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(204);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("Redis's answer, after its sleep"
                + " (freeze returns once Redis sleeps, 50-100 ms into it)").isGreaterThanOrEqualTo(800L);
        assertThat(failuresOf(get(port, "/metrics").body(), patient)).as("the patient zone waited for Redis")
                .isEqualTo("0");
    }

    @Test
    void aRedisThatHangsIsNotAskedAgainForASecondAfterThreeTimeouts() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 50, nodelay = true, store-timeout = 200ms");
        ownRedis.freeze(2);
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            long start = System.nanoTime();
            assertThat(get(port, "/").statusCode()).isEqualTo(204);
            millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        assertThat(millis.subList(0, 3)).as("each waits for store-timeout").allMatch(ms -> ms >= 150);
        assertThat(millis.subList(3, 6)).as("decided at once while Redis is paused").allMatch(ms -> ms < 150);
        Thread.sleep(2_500); // Redis awake, the pause over
        String before = failuresOf(get(port, "/metrics").body(), "z\\d+");
        for (int i = 0; i < 3; i++) {
            assertThat(get(port, "/").statusCode()).isEqualTo(204);
        }
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).as("Redis decides again").isEqualTo(before);
    }

    @Test
    void aRejectedClientIsAnsweredWithoutRedisUntilItsWaitEnds() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 0, nodelay = true, store-timeout = 300ms,"
                + " on-store-failure = allow");
        HttpResponse<String> rejected = get(port, "/");
        assertThat(rejected.statusCode()).as("Redis: the bucket is empty for a minute").isEqualTo(429);
        ownRedis.freeze(2); // Redis would now cost store-timeout, and on-store-failure = allow would serve
        long start = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> again = get(port, "/");
            assertThat(again.statusCode()).as("still rejected, answered here").isEqualTo(429);
            assertThat(Long.parseLong(again.headers().firstValue("Retry-After").orElseThrow())).isBetween(55L, 60L);
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("no round trip").isLessThan(250);
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).as("Redis was not asked").isEqualTo("0");
    }

    @Test
    void theFailureThresholdAndPauseAreTheZones() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 50, nodelay = true, store-timeout = 200ms,"
                + " store-failure-threshold = 1, store-failure-pause = 3s");
        ownRedis.freeze(1);
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThat(get(port, "/").statusCode()).isEqualTo(204);
            millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
        assertThat(millis.get(0)).as("the first waits for store-timeout").isGreaterThanOrEqualTo(150);
        assertThat(millis.subList(1, 3)).as("one failure pauses Redis").allMatch(ms -> ms < 150);
        Thread.sleep(1_500); // Redis awake, but the pause of 3 s is not over
        String during = failuresOf(get(port, "/metrics").body(), "z\\d+");
        assertThat(get(port, "/").statusCode()).isEqualTo(204);
        assertThat(Long.parseLong(failuresOf(get(port, "/metrics").body(), "z\\d+")))
                .as("still decided without Redis").isEqualTo(Long.parseLong(during) + 1);
    }

    /**
     * The round-trip histograms time each decision sent to Redis once: their counts are the scripts Redis ran for
     * the zone, as Redis itself counts them.
     */
    @Test
    void eachDecisionSentToRedisIsTimedOnce() throws Exception {
        ownRedis = RedisServer.start();
        int port = start(config(ownRedis.uri(), "rate = 1000r/s, burst = 1000, nodelay = true"));
        Resp.command(ownRedis.port(), "CONFIG", "RESETSTAT"); // the start's warm-up ran scripts of its own
        int sent = 25;
        for (int i = 0; i < sent; i++) {
            assertThat(get(port, "/").statusCode()).isEqualTo(204);
        }
        String metrics = get(port, "/metrics").body();
        assertThat(scriptsRun(ownRedis)).as("Redis ran one script per request").isEqualTo(sent);
        assertThat(sampleOf(metrics, "portico_rate_limit_store_round_trip_seconds_count", "z\\d+"))
                .isEqualTo(Integer.toString(sent));
        assertThat(sampleOf(metrics, "portico_rate_limit_store_decision_seconds_count", "z\\d+"))
                .isEqualTo(Integer.toString(sent));
        java.util.regex.Matcher sum = java.util.regex.Pattern
                .compile("portico_rate_limit_store_round_trip_seconds_sum\\{zone=\"z\\d+\"\\} ([0-9.eE-]+)")
                .matcher(metrics);
        assertThat(sum.find()).isTrue();
        assertThat(Double.parseDouble(sum.group(1))).as("each round trip took some time").isPositive();
    }

    /**
     * A decision made at store-timeout is timed as a decision at once; its command's round trip only when Redis
     * answers it, late.
     */
    @Test
    void aDecisionAtTheTimeoutIsTimedAndItsLateAnswerToo() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 5, nodelay = true, store-timeout = 200ms");
        ownRedis.freeze(1);
        assertThat(get(port, "/").statusCode()).as("on-store-failure = local, at store-timeout").isEqualTo(204);
        String during = get(port, "/metrics").body();
        assertThat(sampleOf(during, "portico_rate_limit_store_decision_seconds_count", "z\\d+")).isEqualTo("2");
        assertThat(sampleOf(during, "portico_rate_limit_store_round_trip_seconds_count", "z\\d+"))
                .as("the second command not answered yet").isEqualTo("1");
        assertThat(sampleOf(during, "portico_rate_limit_store_decision_seconds_bucket", "z\\d+\",le=\"0.1"))
                .as("the first only: the second waited for store-timeout").isEqualTo("1");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(sampleOf(get(port, "/metrics").body(),
                "portico_rate_limit_store_round_trip_seconds_count", "z\\d+")).isEqualTo("2"));
    }

    /** The scripts (EVALSHA, or EVAL after a NOSCRIPT) {@code redis} ran since its statistics were reset. */
    private static long scriptsRun(RedisServer redis) throws Exception {
        long calls = 0;
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)")
                .matcher(Resp.command(redis.port(), "INFO", "commandstats"));
        while (m.find()) {
            calls += Long.parseLong(m.group(2));
        }
        return calls;
    }

    /** The store failures of the zone whose name matches {@code zone} (a regex). */
    private static String failuresOf(String metrics, String zone) {
        return sampleOf(metrics, "portico_rate_limit_store_failures_total", zone);
    }

    private static String sampleOf(String metrics, String family, String zone) {
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile(family + "\\{zone=\"" + zone + "\"\\} (\\d+)")
                .matcher(metrics);
        assertThat(m.find()).as(family).isTrue();
        return m.group(1);
    }

    @Test
    void theClientsGaugeCountsTheClientsThisInstanceAskedAbout() throws Exception {
        int port = start(config(RedisServer.shared().uri(),
                "key = \"header:X-Key\", rate = 1r/m, burst = 5, nodelay = true"));
        for (String key : List.of("a", "b", "a")) {
            HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                    .header("X-Key", key).timeout(Duration.ofSeconds(10)).build();
            assertThat(http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(204);
        }
        assertThat(sampleOf(get(port, "/metrics").body(), "portico_rate_limit_clients", "z\\d+")).isEqualTo("2");
    }

    @Test
    void anOutageFailsOpenWithinTheTimeoutAndIsCounted() throws Exception {
        int port =
                onOwnRedis("rate = 1r/m, burst = 0, nodelay = true, store-timeout = 300ms, on-store-failure = allow");
        // the bucket is empty now (not asked: a rejection would be answered here, without Redis, for a minute)
        ownRedis.stop();
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThat(get(port, "/").statusCode()).as("on-store-failure = allow").isEqualTo(204);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
        }
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).isEqualTo("3");
    }

    @Test
    void anOutageIsLimitedByEachInstanceAloneByDefault() throws Exception {
        int port = onOwnRedis("rate = 1r/m, burst = 2, nodelay = true, store-timeout = 300ms");
        ownRedis.stop();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            statuses.add(get(port, "/").statusCode());
        }
        assertThat(statuses).as("this instance's own bucket of 3, fresh: Redis's charge is not known here")
                .containsExactly(204, 204, 204, 429, 429);
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).isEqualTo("5");
    }

    @Test
    void anOutageRejectsWhenTheZoneSaysSo() throws Exception {
        int port =
                onOwnRedis("rate = 10r/s, burst = 5, nodelay = true, store-timeout = 300ms, on-store-failure = reject");
        ownRedis.stop();
        HttpResponse<String> response = get(port, "/");
        assertThat(response.statusCode()).isEqualTo(429);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
    }

    @Test
    void aStartWaitsForAHandshakeSlowerThanTheStoreTimeout() throws Exception {
        ownRedis = RedisServer.start();
        long start = System.nanoTime();
        ownRedis.freeze(2);
        int port = start(config(ownRedis.uri(), "rate = 10r/s, store-timeout = 100ms"));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("the start waited for Redis")
                .isGreaterThan(1_000);
        assertThat(get(port, "/").statusCode()).isEqualTo(204);
        assertThat(failuresOf(get(port, "/metrics").body(), "z\\d+")).as("Redis decided").isEqualTo("0");
    }

    @Test
    void aStoreOutOfReachStopsTheStart() throws Exception {
        try (RefusedPort refused = new RefusedPort()) {
            String conf = config("redis://127.0.0.1:" + refused.port(), "rate = 10r/s, store-timeout = 500ms");
            assertThatThrownBy(() -> PorticoServer.start(TestServers.config(conf, Path.of("."))))
                    .isInstanceOf(ListenException.class)
                    .hasMessageContaining(".store: cannot connect to redis://127.0.0.1:" + refused.port());
        }
    }

    /**
     * A server with a zone on a Redis of the test's own ({@link #ownRedis}, to stop or freeze), after one request
     * that Redis admitted; returns the server's port.
     */
    private int onOwnRedis(String zone) throws Exception {
        ownRedis = RedisServer.start();
        int port = start(config(ownRedis.uri(), zone));
        assertThat(get(port, "/").statusCode()).isEqualTo(204);
        return port;
    }

    /** A zone {@code zNN} of its own (Redis outlives each test), applied to every location but /metrics. */
    private static String config(String uri, String zone) {
        String name = "z" + ZONES.incrementAndGet();
        return "rate-limits { " + name + " { " + zone + ", store = \"" + uri + "\" } }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus },"
                + " { path = \"/\", return = 204, rate-limit = " + name + " } ]";
    }

    private int start(String conf) {
        PorticoServer server = TestServers.start(conf);
        servers.add(server);
        return TestServers.port(server);
    }

    private HttpRequest request(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
                .build();
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(request(port, path), HttpResponse.BodyHandlers.ofString());
    }
}
