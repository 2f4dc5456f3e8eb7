package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.uring.IoUring;
import io.portico.server.PorticoServer;
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
        PorticoServer server = TestServers.start("transport = " + transport + "\nworkers = " + LOOPS + "\n"
                + "rate-limits { z { key = \"header:X-Key\", rate = 1r/m, burst = 5, nodelay = true, store = \""
                + redis.uri() + "\" } }\n"
                + "locations = [ { path = \"/\", return = 204, rate-limit = z } ]");
        servers.add(server);
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

    /** Clients connected to {@link #redis}, but the one asking. */
    private long redisClients() throws Exception {
        String list = Resp.command(redis.port(), "CLIENT", "LIST");
        return Arrays.stream(list.split("\n")).filter(line -> line.contains("addr=") && !line.contains("cmd=client"))
                .count();
    }
}
