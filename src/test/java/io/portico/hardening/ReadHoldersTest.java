package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * Two stages holding a client connection's reads at once, through the real server: the keep-alive stage holds a
 * pipelined request while the one before it is proxied, and the rate limiter delays that pipelined request when
 * its turn comes. Each must hold reads until it releases them itself: when the stages switched auto-read on their
 * own, the rate limiter restored the "reads off" it found (the keep-alive stage's) after its delay, and the
 * connection never read again.
 */
class ReadHoldersTest {
    @Test
    void aDelayedPipelinedRequestLeavesTheConnectionReading() throws IOException {
        try (RecordingUpstream upstream = RecordingUpstream.tcp()) {
            PorticoServer server = TestServers.start(ProxiedPortico.LIMITS
                    + "upstreams { app { servers = [{ address = \"" + upstream.address() + "\" }] } }\n"
                    // the first request passes at once, the next one 100 ms later (nginx limit_req, no nodelay)
                    + "rate-limits { z { rate = 10r/s, burst = 5 } }\n"
                    + "locations = [ { path = \"/\", proxy = app, rate-limit = z } ]\n");
            try (RawHttp c = new RawHttp(TestServers.port(server))) {
                c.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\nGET /two HTTP/1.1\r\nHost: x\r\n\r\n");
                assertThat(c.read().status()).as("the first request, proxied").isEqualTo(200);
                assertThat(c.read().status()).as("the pipelined one, delayed then proxied").isEqualTo(200);
                c.setTimeout(1500);
                // well within keepalive-timeout (2 s): the connection must read the next request
                Response third = c.send("GET /three HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(third.status()).as("a request after the delayed one, on the same connection")
                        .isEqualTo(200);
            } finally {
                server.stop();
            }
        }
    }
}
