package io.portico.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kept FastCGI connections on two event loops in front of a real PHP-FPM of two children: {@code keepalive} and
 * {@code max-connections} = {@code pm.max_children}, so the limit counts open connections and no connection waits
 * in PHP-FPM's backlog behind a child that another loop's idle connection holds. A stall would show as a 504 after
 * the read-timeout (2 s), far below the keepalive-timeout (55 s) after which an idle connection would let go. The
 * slow child takes 3 s: a margin over the read-timeout for timers that fire late on a loaded loop (a 3 s timeout
 * against a 3 s sleep answered 200 once in CI).
 */
class FastCgiKeptConnectionsTest {
    @TempDir
    Path dir;
    PhpFpmServer fpm;
    PorticoServer portico;
    int port;

    @BeforeEach
    void start() throws IOException {
        fpm = PhpFpmServer.start(dir, false, 2);
        portico = TestServers.start("workers = 2\n"
                + "upstreams { php { servers = [\"fastcgi://" + fpm.address() + "\"], retries = 0,"
                + " keepalive = 2, max-connections = 2, read-timeout = 2s } }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus },"
                + " { path = \"/\", proxy = php, fastcgi-root = \"" + fpm.root() + "\" } ]\n");
        port = TestServers.port(portico);
    }

    @AfterEach
    void stop() {
        if (portico != null) {
            portico.stop();
        }
        if (fpm != null) {
            fpm.close();
        }
    }

    /**
     * Fifty at once, four times: every one answered, over a few connections rather than 200. The two loops'
     * requests interleave in the queue, so each loop's idle and busy connections hold the children another loop's
     * requests need: with a limit of requests in flight some wait behind them for their 504.
     */
    @Test
    void fiftyConcurrentRequestsShareTheTwoConnections() throws IOException {
        List<RawHttp> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                clients.add(new RawHttp(port));
            }
            for (int round = 0; round < 4; round++) {
                for (RawHttp c : clients) {
                    c.send("GET /echo.php?" + round + " HTTP/1.1\r\nHost: x\r\n\r\n");
                }
                for (RawHttp c : clients) {
                    assertThat(c.read().status()).isEqualTo(200);
                }
            }
        } finally {
            for (RawHttp c : clients) {
                c.close();
            }
        }
        // Connections pass between the loops at most once in MAX_SKIPS + 1 hand-overs under a steady queue.
        assertThat(connects()).isBetween(2L, 60L);
    }

    /** A child killed mid-request is a 502 and its permit comes back; a child too slow is a 504; then all is well. */
    @Test
    void aCrashedChildIsA502ASlowOneA504AndBothPermitsComeBack() throws IOException {
        assertThat(RawHttp.exchange(port, "GET /crash.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(502);
        assertThat(RawHttp.exchange(port, "GET /slow.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status())
                .isEqualTo(504);
        for (int i = 0; i < 6; i++) { // both loops, both connections: a permit lost would leave only one
            assertThat(RawHttp.exchange(port, "GET /echo.php HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .status()).isEqualTo(200);
        }
    }

    /** New connections to PHP-FPM so far, from portico_upstream_connect_duration_seconds. */
    private long connects() throws IOException {
        String text = RawHttp.exchange(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").text();
        return text.lines()
                .filter(l -> l.startsWith("portico_upstream_connect_duration_seconds_count")
                        && l.contains("upstream=\"php\""))
                .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
                .sum();
    }
}
