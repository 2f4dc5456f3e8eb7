package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.config.ConfigLoader;
import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RawHttp;
import io.portico.testing.RefusedPort;
import io.portico.testing.Response;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reload through the real server on loopback, from a configuration file as SIGHUP reads it: new requests (on open
 * connections too) take the new configuration at once, a file with problems changes nothing, and what did not
 * change keeps its state: the listening socket, a zone's clients, an upstream pool's connections.
 */
class ReloadTest {
    @TempDir
    Path dir;

    private Path conf;
    private PorticoServer server;
    private RecordingUpstream upstream;
    private int port;

    @AfterEach
    void stop() throws IOException {
        if (server != null) {
            server.stop();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    /** {@code body} inside {@code portico { }}, with the test listener and short timeouts. */
    private void write(String body) throws IOException {
        conf = dir.resolve("portico.conf");
        Files.writeString(conf, "portico {\n  listen = [\"127.0.0.1:0\"]\n  access-log = off\n  workers = 2\n"
                + "  shutdown-timeout = 1s\n" + body + "\n}\n");
    }

    private void start(String body) throws Exception {
        write(body);
        server = PorticoServer.start(ConfigLoader.load(conf, Optional.of(dir)));
        port = server.localAddresses().get(0).getPort();
    }

    private boolean reload(String body) throws IOException {
        write(body);
        return server.reloadFrom(conf, Optional.of(dir));
    }

    private String upstreams(String extra) throws IOException {
        if (upstream == null) {
            upstream = RecordingUpstream.tcp();
        }
        return "upstreams { app { servers = [\"" + upstream.address() + "\"], keepalive = 4 " + extra + " } }\n";
    }

    private static Response get(RawHttp c, String path) throws IOException {
        return c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
    }

    private Response get(String path) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return get(c, path);
        }
    }

    /** Requests on keep-alive connections and on new ones, until stopped: every status and every failure. */
    private final class Traffic implements AutoCloseable {
        final List<Integer> statuses = new CopyOnWriteArrayList<>();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final AtomicBoolean running = new AtomicBoolean(true);
        final List<Thread> threads = new CopyOnWriteArrayList<>();

        Traffic(String path) {
            threads.add(new Thread(() -> loop(() -> {
                try (RawHttp c = new RawHttp(port)) {
                    while (running.get()) {
                        statuses.add(get(c, path).status());
                    }
                }
            })));
            threads.add(new Thread(() -> loop(() -> {
                while (running.get()) {
                    statuses.add(get(path).status());
                }
            })));
            threads.forEach(Thread::start);
        }

        private void loop(IoTask task) {
            try {
                task.run();
            } catch (Throwable t) {
                failures.add(t);
            }
        }

        int count() {
            return statuses.size();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            for (Thread t : threads) {
                t.join(5000);
            }
        }
    }

    private interface IoTask {
        void run() throws IOException;
    }

    @Test
    void aGoodReloadUnderTrafficTakesEffectAtOnceWithoutAFailedRequest() throws Exception {
        start("locations = [ { path = \"/\", return = { status = 200, body = \"v1\" } } ]");
        try (RawHttp before = new RawHttp(port); Traffic traffic = new Traffic("/")) {
            assertThat(get(before, "/new").text()).isEqualTo("v1");
            await().until(() -> traffic.count() > 50);
            assertThat(reload("locations = [ { path = \"/\", return = { status = 200, body = \"v2\" } },\n"
                    + "  { exact = \"/new\", return = { status = 200, body = \"new route\" } } ]")).isTrue();
            // the connection opened before the reload: its next request is routed by the new configuration
            assertThat(get(before, "/new").text()).isEqualTo("new route");
            assertThat(get(before, "/").text()).isEqualTo("v2");
            int atReload = traffic.count();
            await().until(() -> traffic.count() > atReload + 50);
            traffic.close();
            assertThat(traffic.failures).isEmpty();
            assertThat(traffic.statuses).containsOnly(200);
        }
        assertThat(server.localAddresses().get(0).getPort()).as("the same socket").isEqualTo(port);
    }

    @Test
    void aRequestInFlightFinishesOnTheConfigurationItBeganWith() throws Exception {
        String pool = upstreams("");
        start(pool + "locations = [ { path = \"/slow/\", proxy = app } ]");
        java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
        upstream.behave((conn, request) -> {
            arrived.countDown();
            try {
                answer.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            RecordingUpstream.keepAliveOk(conn, request);
        });
        try (RawHttp inFlight = new RawHttp(port)) {
            inFlight.send("GET /slow/a HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(arrived.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            // the location and its upstream are gone from the new configuration
            assertThat(reload("locations = [ { path = \"/\", return = { status = 200, body = \"new\" } } ]")).isTrue();
            assertThat(get("/slow/a").text()).as("a new request").isEqualTo("new");
            answer.countDown();
            Response r = inFlight.read();
            assertThat(r.status()).as("the request in flight").isEqualTo(200);
            assertThat(r.text()).startsWith("ok 0 ");
            assertThat(get(inFlight, "/slow/a").text()).as("the next request on its connection").isEqualTo("new");
        }
    }

    @Test
    void aReloadWithProblemsKeepsServingTheOldConfigurationAndLogsThemAsCheckPrintsThem() throws Exception {
        start("locations = [ { path = \"/\", return = { status = 200, body = \"v1\" } } ]");
        try (Traffic traffic = new Traffic("/");
                LogCapture log = new LogCapture("io.portico.server.PorticoServer")) {
            await().until(() -> traffic.count() > 20);
            assertThat(reload("workers = many\n"
                    + "locations = [ { path = \"/\", return = { status = 200, body = \"v2\" } } ]")).isFalse();
            assertThat(get("/").text()).isEqualTo("v1");
            int atReload = traffic.count();
            await().until(() -> traffic.count() > atReload + 20);
            traffic.close();
            assertThat(traffic.failures).isEmpty();
            assertThat(traffic.statuses).containsOnly(200);
            assertThat(log.lines())
                    .anySatisfy(l -> assertThat(l).startsWith("ERROR " + conf + ":6: portico.workers: "));
            assertThat(log.lines()).anySatisfy(l -> assertThat(l)
                    .isEqualTo("ERROR reload: configuration has 1 problem; the running configuration stays"));
        }
    }

    @Test
    void noConnectionIsRefusedDuringAReloadAndAnOpenOneKeepsWorking() throws Exception {
        String body = "locations = [ { path = \"/\", return = 204 } ]";
        start(body);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger connects = new AtomicInteger();
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        Thread connector = new Thread(() -> {
            while (running.get()) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                    connects.incrementAndGet();
                } catch (IOException e) {
                    refused.add(e);
                }
            }
        });
        try (RawHttp open = new RawHttp(port)) {
            assertThat(get(open, "/").status()).isEqualTo(204);
            connector.start();
            for (int i = 0; i < 5; i++) {
                assertThat(reload(body + "\nlimits.keepalive-requests = " + (100 + i))).isTrue();
                assertThat(get(open, "/").status()).as("the connection opened before reload " + i).isEqualTo(204);
            }
            running.set(false);
            connector.join(5000);
        }
        assertThat(refused).isEmpty();
        assertThat(connects.get()).isPositive();
    }

    @Test
    void aZoneWhoseDefinitionIsUnchangedKeepsItsClientsAndAChangedOneStartsAfresh() throws Exception {
        String zone = "rate-limits { one { rate = 1r/m, burst = 0 } }\n";
        String locations = "locations = [ { path = \"/\", return = 204, rate-limit = one } %s ]";
        start(zone + locations.formatted(""));
        assertThat(get("/").status()).isEqualTo(204);
        assertThat(get("/").status()).isEqualTo(429);
        assertThat(reload(zone + locations.formatted(", { exact = \"/other\", return = 204 }"))).isTrue();
        assertThat(get("/").status()).as("still held at its limit").isEqualTo(429);
        assertThat(reload(zone.replace("1r/m", "2r/m") + locations.formatted(""))).isTrue();
        assertThat(get("/").status()).as("a changed zone starts empty").isEqualTo(204);
    }

    @Test
    void aCacheZoneWhoseDefinitionIsUnchangedKeepsItsEntriesAndAChangedOneStartsEmpty() throws Exception {
        String zone = "caches { pages { max-size = 1m } }\n";
        String locations = "locations = [ { path = \"/\", proxy = app, cache { zone = pages, valid = { 200 = 1h } } }"
                + " %s ]";
        start(zone + upstreams("") + locations.formatted(""));
        assertThat(get("/page").header("X-Cache")).isEqualTo("MISS");
        assertThat(get("/page").header("X-Cache")).isEqualTo("HIT");
        assertThat(reload(zone + upstreams("") + locations.formatted(", { exact = \"/x\", return = 204 }"))).isTrue();
        assertThat(get("/page").header("X-Cache")).as("the zone kept with its entries").isEqualTo("HIT");
        assertThat(upstream.requests()).hasSize(1);
        assertThat(reload(zone.replace("1m", "2m") + upstreams("") + locations.formatted(""))).isTrue();
        assertThat(get("/page").header("X-Cache")).as("a changed zone starts empty").isEqualTo("MISS");
        assertThat(upstream.requests()).hasSize(2);
    }

    @Test
    void aPoolWhoseDefinitionIsUnchangedKeepsItsConnectionsAndAChangedOneOpensNewOnes() throws Exception {
        String locations = "locations = [ { path = \"/\", proxy = app } %s ]";
        // one event loop: its pool is the one every request here draws on
        String pool = "workers = 1\n" + upstreams("");
        start(pool + locations.formatted(""));
        assertThat(get("/a").status()).isEqualTo(200);
        assertThat(upstream.connectionsAccepted()).isEqualTo(1);
        assertThat(reload(pool + locations.formatted(", { exact = \"/x\", return = 204 }"))).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(get("/b").status()).isEqualTo(200);
        }
        assertThat(upstream.connectionsAccepted()).as("the pooled connection served on").isEqualTo(1);
        assertThat(reload("workers = 1\n" + upstreams(", read-timeout = 7s") + locations.formatted(""))).isTrue();
        assertThat(get("/c").status()).isEqualTo(200);
        assertThat(upstream.connectionsAccepted()).as("a changed pool connects anew").isEqualTo(2);
    }

    @Test
    void aPoolWhoseDefinitionIsUnchangedKeepsItsServersHealthAndAChangedOneStartsHealthy() throws Exception {
        try (RefusedPort dead = new RefusedPort()) {
            upstream = RecordingUpstream.tcp();
            String pool = "upstreams { app { servers = [\"127.0.0.1:" + dead.port() + "\", \"" + upstream.address()
                    + "\"], retries = 1 %s } }\n";
            String locations = "locations = [ { path = \"/\", proxy = app },\n"
                    + "  { exact = \"/status\", status = page } %s ]";
            start(pool.formatted("") + locations.formatted(""));
            for (int i = 0; i < 2; i++) { // round robin: one of the two tries the dead server first
                assertThat(get("/a").status()).isEqualTo(200);
            }
            String down = "{\"server\":\"127.0.0.1:" + dead.port() + "\",\"up\":false";
            assertThat(get("/status?format=json").text()).contains(down);
            assertThat(reload(pool.formatted("") + locations.formatted(", { exact = \"/x\", return = 204 }")))
                    .isTrue();
            assertThat(get("/status?format=json").text()).as("its health kept").contains(down);
            assertThat(reload(pool.formatted(", connect-timeout = 2s") + locations.formatted(""))).isTrue();
            assertThat(get("/status?format=json").text()).as("a changed pool starts afresh")
                    .contains("{\"server\":\"127.0.0.1:" + dead.port() + "\",\"up\":true");
        }
    }

    @Test
    void aListenerAddedIsBoundAndOneRemovedIsClosedWithItsConnections() throws Exception {
        int second;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            second = probe.getLocalPort();
        }
        String locations = "locations = [ { path = \"/\", return = 204 } ]";
        start(locations);
        assertThat(reload("listen = [\"127.0.0.1:0\", \"127.0.0.1:" + second + "\"]\n" + locations)).isTrue();
        RawHttp onSecond = new RawHttp(second);
        try {
            assertThat(get(onSecond, "/").status()).isEqualTo(204);
            assertThat(get("/").status()).as("the first listener kept").isEqualTo(204);
            assertThat(reload(locations)).isTrue();
            assertThat(onSecond.closedByServer()).as("its idle connection closed").isTrue();
        } finally {
            onSecond.close();
        }
        assertThat(get("/").status()).isEqualTo(204);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", second), 2000);
            throw new AssertionError("the removed listener still accepts");
        } catch (ConnectException expected) {
            // refused: nothing listens there any more
        }
    }
}
