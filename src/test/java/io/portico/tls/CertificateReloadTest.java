package io.portico.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.ConfigLoader;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reload reads the certificates again: a renewed certificate under the same file names is what new connections
 * get, on the same listening socket, while a connection opened before keeps its session and keeps being served.
 */
class CertificateReloadTest {
    @TempDir
    Path dir;

    @Test
    void aRenewedCertificateIsServedToNewConnectionsAfterAReload() throws Exception {
        TestCertificates.Issued before = TestCertificates.issue(dir, "site", List.of("site.test"));
        Path conf = dir.resolve("portico.conf");
        Files.writeString(conf, """
                portico {
                  listen = [{ address = "127.0.0.1:0", tls { certificates = [{ cert = "%s", key = "%s" }] } }]
                  access-log = off
                  workers = 1
                  shutdown-timeout = 1s
                  locations = [ { path = "/", return = { status = 200, body = "ok" } } ]
                }
                """.formatted(before.cert(), before.key()));
        PorticoServer server = PorticoServer.start(ConfigLoader.load(conf, Optional.of(dir)));
        try {
            int port = server.localAddresses().get(0).getPort();
            try (SSLSocket old = TlsListenerTest.connect(TestCertificates.trusting(before), port, "site.test")) {
                assertThat(serial(old)).isEqualTo(before.certificate().getSerialNumber());
                TestCertificates.Issued renewed = TestCertificates.issue(dir, "site", List.of("site.test"));
                assertThat(server.reloadFrom(conf, Optional.of(dir))).isTrue();
                assertThat(server.localAddresses().get(0).getPort()).isEqualTo(port);
                try (SSLSocket fresh = TlsListenerTest.connect(TestCertificates.trusting(renewed), port,
                        "site.test")) {
                    assertThat(serial(fresh)).isEqualTo(renewed.certificate().getSerialNumber());
                    assertThat(get(fresh)).isEqualTo(200);
                }
                assertThat(get(old)).as("the connection opened before the reload").isEqualTo(200);
            }
        } finally {
            server.stop();
        }
    }

    private static java.math.BigInteger serial(SSLSocket s) throws Exception {
        return ((X509Certificate) s.getSession().getPeerCertificates()[0]).getSerialNumber();
    }

    private static int get(SSLSocket s) throws Exception {
        RawHttp http = new RawHttp(s);
        return http.send("GET / HTTP/1.1\r\nHost: site.test\r\n\r\n").read().status();
    }
}
