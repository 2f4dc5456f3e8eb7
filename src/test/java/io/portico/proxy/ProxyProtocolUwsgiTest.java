package io.portico.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import static io.portico.proxy.UwsgiProxyTest.environ;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.server.PorticoServer;
import io.portico.testing.ProxyHeaders;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PROXY protocol client as a real uWSGI app sees it: REMOTE_ADDR and REMOTE_PORT are the header's, and the SSL
 * TLV makes REQUEST_SCHEME https and sets HTTPS, as they would be had the client connected to Portico itself.
 */
class ProxyProtocolUwsgiTest {
    @TempDir
    Path dir;

    @Test
    void remoteAddrPortAndSchemeComeFromTheHeader() throws IOException {
        try (UwsgiServer uwsgi = UwsgiServer.tcp(dir)) {
            PorticoServer portico = TestServers.start("listen = [{ address = \"127.0.0.1:0\", proxy-protocol = true,"
                    + " trusted = [\"127.0.0.1/32\"] }]\n"
                    + "upstreams { py { servers = [\"uwsgi://" + uwsgi.address() + "\"], retries = 0 } }\n"
                    + "locations = [ { path = \"/\", proxy = py } ]\n");
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), TestServers.port(portico))) {
                s.setSoTimeout(10_000);
                byte[] header = ProxyHeaders.v2("198.51.100.9", 50001, "127.0.0.1", 443,
                        ProxyHeaders.sslTlv(ProxyHeaders.PP2_CLIENT_SSL, "TLSv1.3"));
                s.getOutputStream().write(ProxyHeaders.concat(header,
                        "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                Response r = new RawHttp(s).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(environ(r)).containsEntry("REMOTE_ADDR", "198.51.100.9")
                        .containsEntry("REMOTE_PORT", "50001").containsEntry("REQUEST_SCHEME", "https")
                        .containsEntry("HTTPS", "on");
            } finally {
                portico.stop();
            }
        }
    }
}
