package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.util.ResourceLeakDetector;
import io.portico.metrics.Scrape;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A spray of 1,000,000 client addresses at one zone through the real server: the zone stays at max-clients,
 * evicts (and says so in the metrics), keeps the state of a client that stays busy, and its heap stays bounded.
 * The million addresses arrive as X-Forwarded-For from a trusted 127.0.0.1 (pipelined keep-alive connections,
 * so it runs in seconds); a smaller spray of real source addresses (127.1.x.y) shows the socket address is the
 * key when the peer is not a trusted proxy.
 */
class AddressSprayTest {
    private static final int MAX_CLIENTS = 20_000;
    private static final int SPRAYED = 1_000_000;
    private static final int CONNECTIONS = 4;
    private static final int BATCH = 1_000;
    private static final int HOT_EVERY = 500;
    private static final String HOT = "192.0.2.1";
    /**
     * Caffeine may hold more than its maximum while evicting: a write lands in the map, then in a write buffer of
     * 128 x (cores rounded up to a power of two) that maintenance drains before it evicts; writers that find the
     * buffer full wait for the eviction lock. While one pass drains a full buffer (up to its size + 1 writes) the
     * writers can fill it again, so the map can be two buffers (plus a write in flight per event loop) above the
     * maximum.
     */
    private static final long SLACK =
            2L * (128 * Integer.highestOneBit(Runtime.getRuntime().availableProcessors() * 2 - 1) + 1) + 2;

    private static PorticoServer server;
    private static int port;

    /**
     * Paranoid leak detection (the suite's level) tracks every buffer with stack records and makes a million
     * requests take minutes; sampling (Netty's default level) still tracks thousands of this class's buffers,
     * so a leak on any path the spray takes is still reported by the LeakReportExtension.
     */
    private static ResourceLeakDetector.Level suiteLevel;

    @BeforeAll
    static void start() {
        suiteLevel = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
        server = TestServers.start("""
                workers = 2
                trusted-proxies = ["127.0.0.1/32"]
                limits { keepalive-requests = 10000000 }
                rate-limits {
                  spray { rate = 1r/m, burst = 5, nodelay = true, max-clients = %d }
                  sockets { rate = 1r/m, burst = 0, nodelay = true, max-clients = 1000 }
                }
                locations = [
                  { path = "/", return = 204, rate-limit = spray }
                  { path = "/s/", return = 204, rate-limit = sockets }
                  { exact = "/metrics", metrics = prometheus }
                ]
                """.formatted(MAX_CLIENTS));
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() {
        server.stop();
        ResourceLeakDetector.setLevel(suiteLevel);
    }

    @Test
    void aMillionForwardedAddressesKeepTheZoneBoundedAndTheHotClientLimited() throws Exception {
        long heapBefore = usedHeapAfterGc();
        long started = System.nanoTime();
        AtomicLong mostClients = new AtomicLong();
        int perConnection = SPRAYED / CONNECTIONS;
        ExecutorService threads = Executors.newFixedThreadPool(CONNECTIONS);
        List<Future<int[]>> hotStatuses = new ArrayList<>();
        try {
            for (int c = 0; c < CONNECTIONS; c++) {
                int first = c * perConnection;
                hotStatuses.add(threads.submit(() -> spray(first, perConnection, mostClients)));
            }
            int hotPassed = 0;
            int hotRejected = 0;
            for (Future<int[]> statuses : hotStatuses) {
                for (int status : statuses.get(60, TimeUnit.SECONDS)) {
                    hotPassed += status == 204 ? 1 : 0;
                    hotRejected += status == 429 ? 1 : 0;
                }
            }
            int hotRequests = SPRAYED / HOT_EVERY;
            assertThat(hotPassed).as("the hot client's bucket (burst 5 + 1) was never reset by eviction").isEqualTo(6);
            assertThat(hotRejected).isEqualTo(hotRequests - 6);
        } finally {
            threads.shutdownNow();
        }

        assertThat(mostClients.get()).as("clients tracked during the spray").isLessThanOrEqualTo(MAX_CLIENTS + SLACK);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                Scrape.of(port, "/metrics").get("portico_rate_limit_clients{zone=\"spray\"}"))
                        .isLessThanOrEqualTo(MAX_CLIENTS));
        Scrape after = Scrape.of(port, "/metrics");
        assertThat(after.get("portico_rate_limit_requests_total{zone=\"spray\",result=\"passed\"}"))
                .as("every sprayed address is new, so each passes").isEqualTo(SPRAYED + 6);
        assertThat(after.get("portico_rate_limit_evictions_total{zone=\"spray\"}"))
                .as("every address beyond max-clients pushed one out")
                .isGreaterThanOrEqualTo(SPRAYED - MAX_CLIENTS - SLACK);

        long grown = usedHeapAfterGc() - heapBefore;
        System.out.printf("spray: %d addresses in %d ms, heap grown %d bytes, at most %d clients tracked%n", SPRAYED,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), grown, mostClients.get());
        long unbounded = SPRAYED * CompactZoneStore.BYTES_PER_CLIENT;
        assertThat(grown).as("heap grown by the spray, bytes (a zone holding every address: %d)", unbounded)
                .isLessThan(unbounded / 4);
    }

    /** Sends {@code count} sprayed addresses from {@code first}, and after every HOT_EVERY one from the hot client. */
    private static int[] spray(int first, int count, AtomicLong mostClients) throws IOException {
        int[] hot = new int[count / HOT_EVERY];
        int hotSeen = 0;
        try (RawHttp client = new RawHttp(port)) {
            StringBuilder batch = new StringBuilder(BATCH * 70);
            for (int sent = 0, batches = 0; sent < count; batches++) {
                batch.setLength(0);
                int n = 0;
                boolean[] isHot = new boolean[BATCH + BATCH / HOT_EVERY];
                for (int i = 0; i < BATCH && sent < count; i++, sent++) {
                    request(batch, forwarded(first + sent + 1));
                    n++;
                    if ((sent + 1) % HOT_EVERY == 0) {
                        request(batch, HOT);
                        isHot[n++] = true;
                    }
                }
                int[] statuses = pipelined(client, batch, n);
                for (int i = 0; i < n; i++) {
                    if (isHot[i]) {
                        hot[hotSeen++] = statuses[i];
                    } else {
                        assertThat(statuses[i]).as("a sprayed address's first request").isEqualTo(204);
                    }
                }
                if (batches % 10 == 0) {
                    long clients = Scrape.of(port, "/metrics").get("portico_rate_limit_clients{zone=\"spray\"}");
                    mostClients.accumulateAndGet(clients, Math::max);
                }
            }
        }
        return hot;
    }

    /**
     * Sends {@code requests} (back to back, in one write) and returns the status of each of the {@code n}
     * responses: the cheapest way to push a million requests through the real server.
     */
    private static int[] pipelined(RawHttp client, CharSequence requests, int n) throws IOException {
        client.send(requests.toString());
        int[] statuses = new int[n];
        for (int i = 0; i < n; i++) {
            statuses[i] = client.read().status();
        }
        return statuses;
    }

    private static void request(StringBuilder batch, String forwardedFor) {
        batch.append("GET / HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: ").append(forwardedFor).append("\r\n\r\n");
    }

    /** 10.0.0.1 for 1, and so on: a distinct address for each index up to 2^24. */
    private static String forwarded(int index) {
        return "10." + ((index >>> 16) & 0xff) + "." + ((index >>> 8) & 0xff) + "." + (index & 0xff);
    }

    @Test
    void distinctSourceAddressesAreDistinctClients() throws Exception {
        int sources = 3_000;
        String one = "GET /s/ HTTP/1.1\r\nHost: t\r\n\r\n";
        String two = one + one;
        try (RawHttp first = RawHttp.from(source(0), port)) {
            assertThat(pipelined(first, two, 2)).as("one source address is one client").containsExactly(204, 429);
        }
        for (int i = 1; i < sources; i++) {
            try (RawHttp client = RawHttp.from(source(i), port)) {
                assertThat(pipelined(client, one, 1)).as("source %s", source(i)).containsExactly(204);
            }
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                Scrape.of(port, "/metrics").get("portico_rate_limit_clients{zone=\"sockets\"}"))
                        .isLessThanOrEqualTo(1000));
        Scrape after = Scrape.of(port, "/metrics");
        assertThat(after.get("portico_rate_limit_requests_total{zone=\"sockets\",result=\"passed\"}"))
                .isEqualTo(sources);
        assertThat(after.get("portico_rate_limit_requests_total{zone=\"sockets\",result=\"rejected\"}")).isEqualTo(1);
        assertThat(after.get("portico_rate_limit_evictions_total{zone=\"sockets\"}"))
                .isGreaterThanOrEqualTo(sources - 1000 - SLACK);
    }

    /** 127.1.0.1, 127.1.0.2, ...: loopback source addresses, none of them the trusted 127.0.0.1. */
    private static InetSocketAddress source(int i) {
        return new InetSocketAddress("127.1." + ((i + 1) >>> 8) + "." + ((i + 1) & 0xff), 0);
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
