package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.metrics.AccessLog;
import io.portico.metrics.PorticoMetrics;
import io.portico.testing.RawHttp;
import io.portico.transport.Transport;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a location costs the server to hold, counted (bytes allocated on this thread while a generation is built,
 * from {@code com.sun.management.ThreadMXBean}), not timed: every byte a generation keeps was allocated while it
 * was built, so the allocation bounds what each location adds to the live heap. 16 KiB per location (a
 * 4,000-slot counter array in each location's meters) made 10,000 locations hold 160 MiB of a 256 MiB heap, and
 * every request then paid for a young generation a fifth of its size and back-to-back marking cycles (issue 23,
 * item 5). The speed itself is measured by {@code bin/bench-locations}.
 */
class LocationCostTest {
    /** Config objects, router nodes, responders, rate-limit entries, meters: about 3.5 KiB today (19.5 before). */
    private static final long MOST_BYTES_PER_LOCATION = 6 * 1024;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final Transport transport = Transport.detect();
    private MultiThreadIoEventLoopGroup group;

    @BeforeEach
    void start() {
        group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
    }

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static PorticoConfig config(int prefixes, int exacts, int hosts) throws Exception {
        StringBuilder c = new StringBuilder(
                "portico { listen = \"127.0.0.1:0\", workers = 1, access-log = off, locations = [\n");
        c.append("{ path = \"/\", return = { status = 200, body = \"x\" } }\n");
        for (int i = 0; i < prefixes; i++) {
            c.append("{ path = \"/p").append(i).append("/\", return = { status = 200, body = \"x\" } }\n");
        }
        for (int i = 0; i < exacts; i++) {
            c.append("{ exact = \"/x").append(i).append("\", return = { status = 200, body = \"x\" } }\n");
        }
        c.append("]\nhosts = [\n");
        for (int i = 0; i < hosts; i++) {
            c.append("{ names = [\"h").append(i).append(".example\"], locations = [")
                    .append("{ path = \"/\", return = { status = 200, body = \"x\" } }, ")
                    .append("{ path = \"/h").append(i).append("/\", return = { status = 200, body = \"x\" } } ] }\n");
        }
        return ConfigLoader.parse(c.append("] }").toString(), "cost.conf", Path.of("."));
    }

    /** The bytes this thread allocates building the generation of {@code config}, which is then closed. */
    private long bytesToBuild(PorticoConfig config) throws Exception {
        ServerParts parts = new ServerParts(new ServerState(), new ConnectionLimiter(config.limits().maxConnections()),
                AccessLog.create(config.accessLog()), new PorticoMetrics(), () -> null);
        long thread = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(thread);
        Generation g = Generation.build(config, null, parts, group, transport);
        long bytes = THREADS.getThreadAllocatedBytes(thread) - before;
        g.targets.close();
        return bytes;
    }

    /** Bytes per added location: a generation with {@code n} of them against one with none. */
    private long perLocation(int prefixes, int exacts, int hosts, int n) throws Exception {
        PorticoConfig none = config(0, 0, 0);
        bytesToBuild(none); // class loading and first-use caches, which a bigger configuration does not repeat
        long base = bytesToBuild(none);
        return (bytesToBuild(config(prefixes, exacts, hosts)) - base) / n;
    }

    /**
     * Bytes the server's one event loop allocates per request over keep-alive: requests that fall through to
     * {@code /}, hit a prefix, hit an exact path and name a virtual host, in turn (on a server without those
     * locations all four fall to {@code /}). Every location answers the same bytes, so that the encoder's copy of a
     * repeated head (server.RepeatedHead) is taken, or not, alike on both servers.
     */
    private static long loopBytesPerRequest(PorticoConfig config) throws Exception {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        PorticoServer server = PorticoServer.start(config);
        try {
            Thread loop = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> !before.contains(t) && t.getName().startsWith("portico-loop")).findFirst()
                    .orElseThrow();
            try (RawHttp client = new RawHttp(server.localAddresses().get(0).getPort())) {
                requests(client, 400); // the JIT's first compilations allocate differently from its last
                long start = THREADS.getThreadAllocatedBytes(loop.getId());
                requests(client, 1000);
                return (THREADS.getThreadAllocatedBytes(loop.getId()) - start) / 1000;
            }
        } finally {
            server.close();
        }
    }

    private static void requests(RawHttp client, int n) throws Exception {
        String[] heads = {
            "GET /a/b HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "GET /p1000/a HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "GET /x1000 HTTP/1.1\r\nHost: localhost\r\n\r\n",
            "GET /h500/a HTTP/1.1\r\nHost: h500.example\r\n\r\n",
        };
        for (int i = 0; i < n; i++) {
            assertThat(client.send(heads[i % heads.length]).read().status()).isEqualTo(200);
        }
    }

    /**
     * A request on a server of 2,000 prefixes, 2,000 exact paths and 500 virtual hosts allocates what it does on
     * a server of one location, give or take the JIT (72 KiB each way today, with the leak detector at PARANOID
     * recording every buffer's accesses; the two differed by 0.1 %): a lookup or a copy per location would add
     * kilobytes.
     */
    @Test
    void aRequestAllocatesNoMoreAmongThousandsOfLocations() throws Exception {
        long one = loopBytesPerRequest(config(0, 0, 0));
        long many = loopBytesPerRequest(config(2000, 2000, 500));
        assertThat(many).as("bytes per request among thousands of locations (one location: %d)", one).isLessThan(one + one / 10 + 512);
    }

    @Test
    void aPrefixLocationCostsAFewKilobytes() throws Exception {
        assertThat(perLocation(2000, 0, 0, 2000)).isLessThan(MOST_BYTES_PER_LOCATION);
    }

    @Test
    void anExactLocationCostsAFewKilobytes() throws Exception {
        assertThat(perLocation(0, 2000, 0, 2000)).isLessThan(MOST_BYTES_PER_LOCATION);
    }

    @Test
    void aVirtualHostsLocationCostsAFewKilobytes() throws Exception {
        assertThat(perLocation(0, 0, 1000, 2000)).isLessThan(MOST_BYTES_PER_LOCATION);
    }
}
