package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.LimitConnConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.server.PorticoServer;
import io.portico.testing.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * limit-conn zones counted in a real Redis: max is the total across instances, a slot outlives a dead instance
 * only for its lease (and a live one renews it), and on-store-failure decides while Redis is away.
 */
class SharedLimitConnTest {
    private static final AtomicInteger ZONES = new AtomicInteger();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<PorticoServer> servers = new ArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private HeldUpstream upstream;

    @AfterEach
    void stop() throws Exception {
        if (upstream != null) {
            upstream.close();
        }
        servers.forEach(PorticoServer::close);
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    @Test
    void twoInstancesShareMaxAndRenewTheirLeasesWhileRequestsLast() throws Exception {
        upstream = new HeldUpstream();
        String conf = config(zoneName(), RedisServer.shared().uri(), "max = 2, store-lease = 600ms");
        int a = start(conf);
        int b = start(conf);
        CompletableFuture<HttpResponse<String>> first = send(a, "/held");
        CompletableFuture<HttpResponse<String>> second = send(b, "/held");
        upstream.awaitHeld(2);
        assertThat(get(a, "/held").statusCode()).as("2 in progress across both instances").isEqualTo(429);
        assertThat(get(b, "/held").statusCode()).isEqualTo(429);
        Thread.sleep(1_500); // well past the lease: renewed while the requests last
        assertThat(get(b, "/held").statusCode()).as("the slots are still held, renewed").isEqualTo(429);
        upstream.answerAll();
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(get(b, "/held").statusCode()).as("both given back at the end of their exchanges").isEqualTo(200);
    }

    @Test
    void aDeadInstancesSlotsAreFreedWithinTheLease() throws Exception {
        String name = zoneName();
        Duration lease = Duration.ofMillis(600);
        LimitConnConfig zone = new LimitConnConfig(name, "client-ip", 2, 429, 64,
                new RateLimitZoneConfig.Store(URI.create(RedisServer.shared().uri()), Duration.ofSeconds(1),
                        RateLimitZoneConfig.Failure.REJECT), lease);
        RedisConnections connections = new RedisConnections();
        closing.add(connections);
        // an instance that took both slots of 127.0.0.1, then died: it never gives them back nor renews them
        RedisConnStore dead = new RedisConnStore(zone,
                connections.connection("limit-conn." + name, zone.store(), zone.store().timeout()), "dead");
        ClientKey client = ClientKey.ipv4(0x7f000001);
        long died = System.nanoTime(); // its leases start with its takes, in Redis's clock
        assertThat(dead.take(client, StoreKind.TIMER).get(5, TimeUnit.SECONDS).admitted()).isTrue();
        assertThat(dead.take(client, StoreKind.TIMER).get(5, TimeUnit.SECONDS).admitted()).isTrue();
        int port = start(config(name, RedisServer.shared().uri(), "max = 2, store-lease = 600ms"));
        assertThat(get(port, "/").statusCode()).as("the dead instance's slots count").isEqualTo(429);
        int status = 0;
        while (System.nanoTime() - died < TimeUnit.SECONDS.toNanos(5) && (status = get(port, "/").statusCode()) != 204) {
            Thread.sleep(20);
        }
        long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died);
        assertThat(status).as("freed").isEqualTo(204);
        assertThat(freedAfter).as("after the lease, not long after").isBetween(lease.toMillis() - 10, lease.toMillis() + 500);
    }

    @Test
    void anOutageIsDecidedByOnStoreFailure() throws Exception {
        RedisServer own = RedisServer.start();
        closing.add(own::stop);
        upstream = new HeldUpstream();
        int local = start(config(zoneName(), own.uri(), "max = 1, store-timeout = 200ms"));
        int reject = start(config(zoneName(), own.uri(), "max = 1, store-timeout = 200ms, on-store-failure = reject"));
        assertThat(get(local, "/").statusCode()).isEqualTo(204);
        own.stop();
        assertThat(get(reject, "/").statusCode()).as("on-store-failure = reject").isEqualTo(429);
        CompletableFuture<HttpResponse<String>> held = send(local, "/held");
        upstream.awaitHeld(1);
        assertThat(get(local, "/held").statusCode()).as("this instance's own count of 1").isEqualTo(429);
        upstream.answerAll();
        assertThat(held.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        assertThat(get(local, "/").statusCode()).as("given back locally").isEqualTo(204);
        String metrics = get(local, "/metrics").body();
        assertThat(metrics).containsPattern("portico_limit_conn_store_failures_total\\{zone=\"lc\\w+\"\\} [1-9]");
    }

    @Test
    void aClientThatLeavesWhileRedisCountsGivesItsSlotBack() throws Exception {
        RedisServer own = RedisServer.start();
        closing.add(own::stop);
        int port = start(config(zoneName(), own.uri(), "max = 1, store-timeout = 3s"));
        assertThat(get(port, "/").statusCode()).isEqualTo(204);
        own.freeze(1);
        try (io.portico.testing.RawHttp leaving = new io.portico.testing.RawHttp(port)) {
            // held (with its body, reads paused) while Redis sleeps, closed by the client meanwhile: Portico sees the
            // close once it reads again, after the answer, and the slot is given back with the exchange
            leaving.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
            Thread.sleep(200);
        }
        // Redis awake and its answer in: the slot taken for the client that left is given back. (A request decided
        // in between, queued behind the take, would have found it taken.)
        Thread.sleep(1_500);
        assertThat(get(port, "/").statusCode()).as("the slot is free, not held until its lease (10 s) ends")
                .isEqualTo(204);
    }

    /**
     * The round-trip histograms time each take of a slot once: their counts are the take scripts Redis ran, as
     * Redis itself counts them (EVALSHA: the script was loaded at start; a renewal would be an EVAL, and the
     * releases ZREMs, neither of which is a decision).
     */
    @Test
    void eachTakeSentToRedisIsTimedOnce() throws Exception {
        RedisServer own = RedisServer.start();
        closing.add(own::stop);
        int port = start(config(zoneName(), own.uri(), "max = 5"));
        Resp.command(own.port(), "CONFIG", "RESETSTAT"); // the start's warm-up ran scripts of its own
        int sent = 25;
        for (int i = 0; i < sent; i++) {
            assertThat(get(port, "/").statusCode()).isEqualTo(204);
        }
        String metrics = get(port, "/metrics").body();
        assertThat(calls(own, "evalsha")).as("Redis ran one take per request").isEqualTo(sent);
        assertThat(sampleOf(metrics, "portico_limit_conn_store_round_trip_seconds_count"))
                .isEqualTo(Integer.toString(sent));
        assertThat(sampleOf(metrics, "portico_limit_conn_store_decision_seconds_count"))
                .isEqualTo(Integer.toString(sent));
        java.util.regex.Matcher sum = java.util.regex.Pattern
                .compile("portico_limit_conn_store_round_trip_seconds_sum\\{zone=\"lc\\w+\"\\} ([0-9.eE-]+)")
                .matcher(metrics);
        assertThat(sum.find()).isTrue();
        assertThat(Double.parseDouble(sum.group(1))).as("each round trip took some time").isPositive();
        assertThat(metrics).as("not counted as a rate-limit zone's")
                .doesNotContain("portico_rate_limit_store_round_trip_seconds_count{");
    }

    /** How many times {@code redis} ran {@code command} since its statistics were reset. */
    private static long calls(RedisServer redis, String command) throws Exception {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_" + command + ":calls=(\\d+)")
                .matcher(Resp.command(redis.port(), "INFO", "commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static String sampleOf(String metrics, String family) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(family + "\\{zone=\"lc\\w+\"\\} (\\d+)")
                .matcher(metrics);
        assertThat(m.find()).as(family).isTrue();
        return m.group(1);
    }

    private static String zoneName() {
        return "lc" + ZONES.incrementAndGet() + "x" + Long.toString(System.nanoTime() % 100_000, 36);
    }

    /** The zone on / (return 204) and /held (the held upstream, when there is one). */
    private String config(String name, String uri, String zone) {
        return "limit-conn { " + name + " { " + zone + ", store = \"" + uri + "\" } }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus }, "
                + (upstream == null ? "" : "{ path = \"/held\", proxy = \"http://127.0.0.1:" + upstream.port()
                        + "\", limit-conn = " + name + " }, ")
                + "{ path = \"/\", return = 204, limit-conn = " + name + " } ]";
    }

    private int start(String conf) {
        PorticoServer server = TestServers.start(conf);
        servers.add(server);
        return TestServers.port(server);
    }

    private CompletableFuture<HttpResponse<String>> send(int port, String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return send(port, path).get(20, TimeUnit.SECONDS);
    }
}
