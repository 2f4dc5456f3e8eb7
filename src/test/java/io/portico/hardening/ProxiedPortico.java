package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.io.IOException;

/**
 * A real Portico whose locations proxy to a {@link RecordingUpstream}, with the short limits and timeouts the
 * hardening suite runs on: {@code /} buffers request bodies, {@code /stream/} streams them.
 */
final class ProxiedPortico implements AutoCloseable {
    static final String LIMITS = "limits { max-body-size = 1k, max-header-count = 20, max-request-line = 1k,"
            + " max-header-size = 2k,"
            + " client-header-timeout = 300ms, client-body-timeout = 300ms, send-timeout = 300ms,"
            + " keepalive-timeout = 2s }\n";

    final RecordingUpstream upstream;
    final PorticoServer server;
    final int port;

    ProxiedPortico(RecordingUpstream upstream, String limits, String upstreamExtra) throws IOException {
        this.upstream = upstream;
        this.server = TestServers.start(limits
                + "upstreams { app { servers = [{ address = \"" + upstream.address()
                + "\", max-fails = 0 }], retries = 0,"
                + " connect-timeout = 300ms, read-timeout = 300ms, send-timeout = 300ms " + upstreamExtra + " } }\n"
                + "locations = [ { path = \"/\", proxy = app },"
                + " { path = \"/stream/\", proxy = app, streaming = true } ]\n");
        this.port = TestServers.port(server);
    }

    static ProxiedPortico start() throws IOException {
        return new ProxiedPortico(RecordingUpstream.tcp(), LIMITS, "");
    }

    /** A normal GET on a new connection is proxied and answered 200. */
    void assertStillServes() throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("GET /normal HTTP/1.1\r\nHost: x\r\n\r\n").read();
            assertThat(r.status()).as("a normal request on a new connection").isEqualTo(200);
            assertThat(r.text()).startsWith("ok 0 ");
        }
    }

    @Override
    public void close() throws IOException {
        server.stop();
        upstream.close();
    }
}
