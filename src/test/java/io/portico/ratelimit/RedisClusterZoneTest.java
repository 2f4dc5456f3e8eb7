package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Shared zones on a real Redis Cluster (three masters, three replicas), through real Portico servers: exact
 * decisions for clients spread over every master, each client's keys in the slot of its hash tag, and a master
 * killed mid-run (the failover test runs last: it leaves the cluster with one master fewer replica).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterZoneTest {
    private static final AtomicInteger ZONES = new AtomicInteger();
    private static RedisCluster cluster;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<PorticoServer> servers = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void stopServers() {
        servers.forEach(PorticoServer::close);
    }

    @Test
    @Order(1)
    void twoInstancesDecideExactlyForClientsOnEveryMaster() throws Exception {
        String zone = zoneName();
        String conf = config(zone, cluster.uri(), "rate = 1r/m, burst = 2, nodelay = true, store-timeout = 2s");
        int a = start(conf);
        int b = start(config(zone, cluster.seedUri(), "rate = 1r/m, burst = 2, nodelay = true, store-timeout = 2s"));
        Set<Integer> masters = new HashSet<>();
        for (int client = 0; client < 12; client++) {
            String key = "c" + client;
            masters.add(cluster.masterOf(cluster.slot(zone + ":" + key)).port());
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                statuses.add(get(i % 2 == 0 ? a : b, "/", key).statusCode());
            }
            assertThat(statuses).as("client %s: burst 2 + 1 between both instances", key)
                    .containsExactly(204, 204, 204, 429, 429);
        }
        assertThat(masters).as("the clients' slots are spread over the three masters").hasSize(3);
        assertThat(failures(a, zone)).isEqualTo(0);
        assertThat(failures(b, zone)).isEqualTo(0);
    }

    @Test
    @Order(1)
    void eachClientsKeysAreInTheSlotOfItsHashTag() throws Exception {
        String zone = zoneName();
        int before = start(config(zone, cluster.uri(), "rate = 1r/m, burst = 1, nodelay = true, store-timeout = 2s"));
        int after = start(config(zone, cluster.uri(), "rate = 1r/m, burst = 3, nodelay = true, store-timeout = 2s"));
        for (String client : List.of("alice", "bob", "carol")) {
            assertThat(get(before, "/", client).statusCode()).isEqualTo(204);
            assertThat(get(after, "/", client).statusCode()).isEqualTo(204);
        }
        List<String> keys = cluster.keys("portico:rate-limit:{" + zone + ":*");
        assertThat(keys).as("one bucket per client and setting").hasSize(6);
        for (String key : keys) {
            String client = key.substring(key.indexOf(':', key.indexOf('{')) + 1, key.indexOf('}'));
            assertThat(cluster.slot(key)).as(key).isEqualTo(cluster.slot(zone + ":" + client));
        }
    }

    @Test
    @Order(2)
    void aSharedLimitConnCountsAcrossTwoInstancesOnTheCluster() throws Exception {
        String zone = zoneName();
        try (HeldUpstream upstream = new HeldUpstream()) {
            String conf = "limit-conn { " + zone + " { key = \"header:X-Key\", max = 3, store-timeout = 2s, store = \"" + cluster.uri()
                    + "\" } }\nlocations = [ { path = \"/\", proxy = \"http://127.0.0.1:" + upstream.port()
                    + "\", limit-conn = " + zone + " } ]";
            int a = start(conf);
            int b = start(conf);
            List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            for (String client : List.of("x", "y")) {
                for (int i = 0; i < 3; i++) {
                    held.add(http.sendAsync(request(i % 2 == 0 ? a : b, client), HttpResponse.BodyHandlers.ofString()));
                }
            }
            upstream.awaitHeld(6);
            assertThat(get(a, "/", "x").statusCode()).as("x has 3 in progress across both").isEqualTo(429);
            assertThat(get(b, "/", "y").statusCode()).as("y too").isEqualTo(429);
            upstream.answerAll();
            for (var response : held) {
                assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
            }
            assertThat(cluster.slot("portico:limit-conn:{" + zone + ":x}")).isEqualTo(cluster.slot(zone + ":x"));
        }
    }

    /**
     * The failure pause is the node's: with one master not answering (CLIENT PAUSE, which leaves the cluster bus
     * alone, so no failover starts) a client on it is decided by on-store-failure and its node paused, while a client
     * on another master is still decided by Redis. With the pause per zone, as before, the second client was
     * decided by on-store-failure too.
     */
    @Test
    @Order(2)
    void aFailingMasterPausesOnlyTheKeysItHolds() throws Exception {
        String zone = zoneName();
        int port = start(config(zone, cluster.uri(), "rate = 1r/m, burst = 4, nodelay = true, store-timeout = 200ms,"
                + " store-failure-threshold = 1, store-failure-pause = 10s"));
        String onPaused = "k0";
        RedisCluster.Node paused = cluster.masterOf(cluster.slot(zone + ":" + onPaused));
        String elsewhere = null;
        for (int i = 1; elsewhere == null; i++) {
            if (!cluster.masterOf(cluster.slot(zone + ":k" + i)).equals(paused)) {
                elsewhere = "k" + i;
            }
        }
        assertThat(get(port, "/", onPaused).statusCode()).isEqualTo(204);
        assertThat(get(port, "/", elsewhere).statusCode()).isEqualTo(204);
        assertThat(Resp.command(paused.port(), "CLIENT", "PAUSE", "1500", "ALL")).isEqualTo("OK");
        try {
            assertThat(get(port, "/", onPaused).statusCode()).as("on-store-failure = local").isEqualTo(204);
            assertThat(failures(port, zone)).as("a timeout: its node is paused").isEqualTo(1);
            long start = System.nanoTime();
            assertThat(get(port, "/", onPaused).statusCode()).isEqualTo(204);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).as("paused: not asked")
                    .isLessThan(150);
            assertThat(failures(port, zone)).isEqualTo(2);
            for (int i = 0; i < 4; i++) {
                assertThat(get(port, "/", elsewhere).statusCode()).isEqualTo(204);
            }
            assertThat(get(port, "/", elsewhere).statusCode()).as("Redis's bucket of 5 for the other client")
                    .isEqualTo(429);
            assertThat(failures(port, zone)).as("the other master still decides").isEqualTo(2);
        } finally {
            Resp.command(paused.port(), "CLIENT", "UNPAUSE");
        }
    }

    /**
     * A master killed (SIGKILL) while requests flow: none waits longer than store-timeout plus 10 ms, on-store-failure
     * decides meanwhile, and once the replica has taken over the zone is exact again within 5 s.
     */
    @Test
    @Order(3)
    void aMasterKilledMidRunIsDecidedPromptlyAndTheZoneIsExactAgainSoonAfterTheFailover() throws Exception {
        String zone = zoneName();
        long timeoutMillis = 100;
        int port = start(config(zone, cluster.uri(),
                "rate = 1r/m, burst = 4, nodelay = true, store-timeout = " + timeoutMillis + "ms"));
        int victimSlot = cluster.slot(zone + ":probe-0");
        RedisCluster.Node victim = cluster.masterOf(victimSlot);
        List<String> onVictim = new ArrayList<>();
        for (int i = 0; onVictim.size() < 200; i++) {
            if (cluster.masterOf(cluster.slot(zone + ":p" + i)).equals(victim)) {
                onVictim.add("p" + i);
            }
        }
        assertThat(exact(port, zone, onVictim.remove(0))).as("exact before the kill").isTrue();

        AtomicBoolean running = new AtomicBoolean(true);
        List<long[]> waits = java.util.Collections.synchronizedList(new ArrayList<>()); // {started, waited}
        // One keep-alive connection, a buffered reader: what the client measures is Portico's wait, not an HTTP
        // client's threads (java.net.http hands each response through a selector thread and an executor).
        Thread load = new Thread(() -> {
            try (RawHttp client = new RawHttp(port)) {
                for (int i = 0; running.get(); i++) {
                    long start = System.nanoTime();
                    client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Key: load-" + (i % 50) + "\r\n\r\n").read();
                    waits.add(new long[] {start, System.nanoTime() - start});
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        load.start();
        Thread.sleep(300);
        cluster.kill(victim);
        long killed = System.nanoTime();
        cluster.awaitFailover(victim, victimSlot, 20);
        long failedOver = System.nanoTime();
        long exactAgain = 0;
        while (System.nanoTime() - failedOver < TimeUnit.SECONDS.toNanos(10)) {
            if (exact(port, zone, onVictim.remove(0))) {
                exactAgain = System.nanoTime();
                break;
            }
            Thread.sleep(100);
        }
        running.set(false);
        load.join(5_000);
        List<long[]> byWait = waits.stream().sorted((x, y) -> Long.compare(y[1], x[1])).toList();
        long longest = byWait.get(0)[1];
        List<Long> sorted = waits.stream().map(w -> w[1]).sorted().toList();
        System.out.printf("waits: p50 %.2f ms, p99 %.2f ms, over %d ms: %d of %d; the longest: %s%n",
                sorted.get(sorted.size() / 2) / 1e6, sorted.get(sorted.size() * 99 / 100) / 1e6, timeoutMillis + 10,
                sorted.stream().filter(w -> w > (timeoutMillis + 10) * 1_000_000).count(), sorted.size(),
                byWait.stream().limit(5).map(w -> String.format("%.1f ms at %+d ms from the kill", w[1] / 1e6,
                        TimeUnit.NANOSECONDS.toMillis(w[0] - killed))).toList());
        System.out.printf("failover: %d ms after the kill; exact again %d ms after it; %d requests, the longest"
                + " %.1f ms (store-timeout %d ms)%n", TimeUnit.NANOSECONDS.toMillis(failedOver - killed),
                TimeUnit.NANOSECONDS.toMillis(exactAgain - failedOver), waits.size(), longest / 1e6, timeoutMillis);
        assertThat(exactAgain).as("exact again within 10 s").isNotZero();
        assertThat(TimeUnit.NANOSECONDS.toMillis(exactAgain - failedOver)).as("exact again after the failover")
                .isLessThan(5_000);
        // The figure is the longest wait; the test allows the scheduling delays of a loaded 2-core CI box (a
        // load average of 13 gave 2 of 966 requests at 130 ms) on top of store-timeout for the few, + 25 ms for 99 %.
        assertThat(sorted.get(sorted.size() * 99 / 100) / 1e6).as("99 % within store-timeout + 25 ms")
                .isLessThan(timeoutMillis + 25.0);
        assertThat(longest / 1e6).as("none much longer than store-timeout").isLessThan(timeoutMillis + 100.0);
        assertThat(failures(port, zone)).as("on-store-failure decided meanwhile").isGreaterThan(0);
    }

    /** A fresh client gets exactly its burst of 5 from Redis: 5 passes, a rejection, no store failure. */
    private boolean exact(int port, String zone, String client) throws Exception {
        long failuresBefore = failures(port, zone);
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            statuses.add(get(port, "/", client).statusCode());
        }
        return statuses.equals(List.of(204, 204, 204, 204, 204, 429)) && failures(port, zone) == failuresBefore;
    }

    private long failures(int port, String zone) throws Exception {
        String metrics = get(port, "/metrics", "metrics").body();
        Matcher m = Pattern.compile("portico_rate_limit_store_failures_total\\{zone=\"" + zone + "\"\\} (\\d+)")
                .matcher(metrics);
        assertThat(m.find()).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String zoneName() {
        return "c" + ZONES.incrementAndGet() + "x" + Long.toString(System.nanoTime() % 100_000, 36);
    }

    /** The zone keyed by X-Key on every location but /metrics. */
    static String config(String name, String uri, String zone) {
        return "rate-limits { " + name + " { key = \"header:X-Key\", " + zone + ", store = \"" + uri + "\" } }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus },"
                + " { path = \"/\", return = 204, rate-limit = " + name + " } ]";
    }

    private int start(String conf) {
        PorticoServer server = TestServers.start(conf);
        servers.add(server);
        return TestServers.port(server);
    }

    private HttpResponse<String> get(int port, String path, String key) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Key", key).timeout(Duration.ofSeconds(10)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(int port, String key) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).header("X-Key", key)
                .timeout(Duration.ofSeconds(20)).build();
    }
}
