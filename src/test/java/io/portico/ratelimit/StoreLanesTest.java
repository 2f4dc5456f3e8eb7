package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A shared zone's connections run on the server's event loops, one per loop, on every transport the server can
 * run on: Lettuce would build epoll channels wherever epoll loads, which do not register on an io_uring or NIO loop
 * (see {@link StoreLanes}).
 */
class StoreLanesTest {
    private static final int LOOPS = 3;

    private final List<PorticoServer> servers = new ArrayList<>();
    private RedisServer redis;

    @AfterEach
    void stop() {
        servers.forEach(PorticoServer::close);
        if (redis != null) {
            redis.stop();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void eachLoopAsksItsOwnConnectionAndTheZoneStaysExact(String transport) throws Exception {
        assumeTrue(!transport.equals("epoll") || Epoll.isAvailable(), "epoll does not load here");
        assumeTrue(!transport.equals("io_uring") || IoUring.isAvailable(), "io_uring does not load here");
        redis = RedisServer.start();
        PorticoServer server;
        try (LogCapture bootstrap = new LogCapture("io.netty.bootstrap")) {
            server = TestServers.start("transport = " + transport + "\nworkers = " + LOOPS + "\n"
                    + "rate-limits { z { key = \"header:X-Key\", rate = 1r/m, burst = 5, nodelay = true, store = \""
                    + redis.uri() + "\" } }\n"
                    + "locations = [ { path = \"/\", return = 204, rate-limit = z } ]");
            servers.add(server);
            // Lettuce's keep-alive timings come as the options of the transport it would have picked itself.
            assertThat(bootstrap.lines()).as("options the lane's channel does not know")
                    .noneMatch(line -> line.contains("Unknown channel option"));
        }
        assertThat(server.transport()).isEqualTo(transport);
        assertThat(redisClients()).as("one connection per event loop").isEqualTo(LOOPS);

        int port = TestServers.port(server);
        List<RawHttp> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 2 * LOOPS; i++) {
                clients.add(new RawHttp(port)); // accepted round-robin over the loops
            }
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                statuses.add(clients.get(i % clients.size())
                        .send("GET / HTTP/1.1\r\nHost: x\r\nX-Key: k\r\n\r\n").read().status());
            }
            assertThat(statuses).as("burst 5 + 1 over every loop's connection")
                    .containsExactly(204, 204, 204, 204, 204, 204, 429, 429, 429, 429, 429, 429);
        } finally {
            for (RawHttp client : clients) {
                client.close();
            }
        }
    }

    /**
     * Each loop's connection has run its first commands (the scripts loaded, then a script that does nothing sent
     * by key, the last an EVALSHA) when the server's start returns, before any request: so the first decision
     * runs warm code and finds its script, and is answered by Redis well within store-timeout. Cold, one run's
     * first decision was held 432 ms, the store-timeout's deadline running 136 ms late on a loop busy with
     * Lettuce's first commands.
     */
    @ParameterizedTest
    @ValueSource(strings = {"epoll", "nio"})
    void eachLoopsConnectionRunsItsFirstCommandsBeforeTheListenersAccept(String transport) throws Exception {
        assumeTrue(!transport.equals("epoll") || Epoll.isAvailable(), "epoll does not load here");
        redis = RedisServer.start();
        long storeTimeoutMillis = 100;
        PorticoServer server = TestServers.start("transport = " + transport + "\nworkers = " + LOOPS + "\n"
                + "rate-limits { z { key = \"header:X-Key\", rate = 1r/m, burst = 5, nodelay = true, store-timeout = "
                + storeTimeoutMillis + "ms, store = \"" + redis.uri() + "\" } }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus },"
                + " { exact = \"/unlimited\", return = 204 }, { path = \"/\", return = 204, rate-limit = z } ]");
        servers.add(server);

        List<String> lastCommands = Arrays.stream(Resp.command(redis.port(), "CLIENT", "LIST").split("\n"))
                .filter(line -> line.contains("addr=") && !line.contains("cmd=client"))
                .map(line -> line.replaceAll(".* cmd=(\\S+).*", "$1")).toList();
        assertThat(lastCommands).as("every loop's connection's last command, before any request")
                .hasSize(LOOPS).containsOnly("evalsha");
        for (RedisScript script : RedisZoneStore.SCRIPTS) {
            assertThat(Resp.command(redis.port(), "SCRIPT", "EXISTS", script.sha())).as("loaded at start")
                    .isEqualTo("1");
        }

        int port = TestServers.port(server);
        List<RawHttp> clients = new ArrayList<>();
        try {
            for (int i = 0; i < LOOPS; i++) {
                clients.add(new RawHttp(port)); // accepted round-robin: one first decision on each loop
            }
            for (RawHttp client : clients) {
                // the request path without a zone first: its own first run (HTTP codec, routing) is not the store's
                long start = System.nanoTime();
                assertThat(client.get("/unlimited").status()).isEqualTo(204);
                double unlimited = (System.nanoTime() - start) / 1e6;
                start = System.nanoTime();
                int status = client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Key: first\r\n\r\n").read().status();
                double millis = (System.nanoTime() - start) / 1e6;
                System.out.printf("a loop's first request %.1f ms, then its first decision %.1f ms (%s)%n", unlimited,
                        millis, transport);
                assertThat(status).isEqualTo(204);
                // Redis's answer or the deadline's, on time: the slack is a loaded 2-core CI box's wait for a core
                // (as RedisClusterZoneTest allows), not the hundreds of ms a cold loop took
                assertThat(millis).as("a first decision, within store-timeout + 100 ms")
                        .isLessThan(storeTimeoutMillis + 100.0);
            }
            String metrics = new String(clients.get(0).get("/metrics").body(), java.nio.charset.StandardCharsets.UTF_8);
            System.out.println(metrics.lines().filter(l -> l.startsWith("portico_rate_limit_store_failures_total"))
                    .findFirst().orElse("no store failure count"));
        } finally {
            for (RawHttp client : clients) {
                client.close();
            }
        }
    }

    /** Clients connected to {@link #redis}, but the one asking. */
    private long redisClients() throws Exception {
        String list = Resp.command(redis.port(), "CLIENT", "LIST");
        return Arrays.stream(list.split("\n")).filter(line -> line.contains("addr=") && !line.contains("cmd=client"))
                .count();
    }
}
