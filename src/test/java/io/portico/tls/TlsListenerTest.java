package io.portico.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestCertificates.Issued;
import io.portico.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * TLS listeners end to end, with each engine (BoringSSL through netty-tcnative, and the JDK's): a file and a proxied
 * request over TLS, the certificate SNI chooses, ALPN, the protocol versions, session resumption, plain HTTP sent to
 * the TLS port, and a client that never finishes its handshake.
 */
class TlsListenerTest {
    static Path dir;
    static Issued first;
    static Issued exact;
    static Issued wildcard;
    static byte[] big;
    static ServerSocket app;
    static Thread appThread;

    @BeforeAll
    static void setUp() throws Exception {
        dir = Files.createTempDirectory("portico-tls");
        first = TestCertificates.issue(dir, "default", List.of("default.test"));
        exact = TestCertificates.issue(dir, "exact", List.of("a.test"), TestCertificates.KeyType.EC,
                TestCertificates.KeyFormat.TRADITIONAL, java.time.Instant.now().plusSeconds(86400));
        wildcard = TestCertificates.issue(dir, "wild", List.of("*.b.test", "b.test"), TestCertificates.KeyType.RSA,
                TestCertificates.KeyFormat.TRADITIONAL, java.time.Instant.now().plusSeconds(86400));
        Files.createDirectories(dir.resolve("www"));
        Files.writeString(dir.resolve("www/hello.txt"), "hello over tls");
        big = new byte[3 * 1024 * 1024 + 17];
        new Random(24).nextBytes(big);
        Files.write(dir.resolve("www/big.bin"), big);
        app = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        appThread = new Thread(TlsListenerTest::echoHeads, "tls-test-app");
        appThread.setDaemon(true);
        appThread.start();
    }

    @AfterAll
    static void tearDown() throws Exception {
        app.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** An upstream that answers each request with its head as the body, one request per connection. */
    private static void echoHeads() {
        while (!app.isClosed()) {
            try (Socket s = app.accept()) {
                String head = Exchange.head(s.getInputStream());
                byte[] body = head.getBytes(StandardCharsets.ISO_8859_1);
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
            } catch (IOException e) {
                // closed at the end of the class
            }
        }
    }

    static PorticoServer start(String provider, String tlsExtra) {
        return TestServers.start("listen = [ { address = \"127.0.0.1:0\", tls { certificates = [\n"
                + "  { cert = \"" + first.cert() + "\", key = \"" + first.key() + "\" }\n"
                + "  { cert = \"" + exact.cert() + "\", key = \"" + exact.key() + "\" }\n"
                + "  { cert = \"" + wildcard.cert() + "\", key = \"" + wildcard.key() + "\" }\n"
                + " ], provider = " + provider + " " + tlsExtra + " } } ]\n"
                + "upstreams { app { servers = [\"127.0.0.1:" + app.getLocalPort() + "\"] } }\n"
                + "locations = [ { path = \"/files/\", alias = \"" + dir.resolve("www") + "/\" },"
                + " { path = \"/\", proxy = app } ]\n");
    }

    static SSLSocket connect(int port, String sni, String... protocols) throws Exception {
        SSLContext ctx = TestCertificates.trusting(first, exact, wildcard);
        return connect(ctx, port, sni, protocols);
    }

    static SSLSocket connect(SSLContext ctx, int port, String sni, String... protocols) throws Exception {
        return connectOffering(ctx, port, sni, new String[] {"http/1.1"}, protocols);
    }

    static SSLSocket connectOffering(SSLContext ctx, int port, String sni, String[] alpn, String... protocols)
            throws Exception {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        SSLParameters p = s.getSSLParameters();
        if (sni != null) {
            p.setServerNames(List.of(new SNIHostName(sni)));
        }
        p.setApplicationProtocols(alpn);
        if (protocols.length > 0) {
            p.setProtocols(protocols);
        }
        s.setSSLParameters(p);
        s.setSoTimeout(5000);
        s.startHandshake();
        return s;
    }

    private static String peerName(SSLSocket s) throws Exception {
        X509Certificate peer = (X509Certificate) s.getSession().getPeerCertificates()[0];
        return peer.getSubjectX500Principal().getName();
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void servesFilesAndProxiesOverTls(String provider) throws Exception {
        try (PorticoServer server = start(provider, "")) {
            int port = TestServers.port(server);
            try (RawHttp c = new RawHttp(connect(port, "a.test"))) {
                Response r = c.send("GET /files/hello.txt HTTP/1.1\r\nHost: a.test\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("hello over tls");
                Response big = c.send("GET /files/big.bin HTTP/1.1\r\nHost: a.test\r\n\r\n").read();
                assertThat(big.status()).isEqualTo(200);
                assertThat(sha256(big.body())).as("a 3 MiB file through TLS, in chunks").isEqualTo(sha256(
                        TlsListenerTest.big));
                Response proxied = c.send("GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n").read();
                assertThat(proxied.status()).isEqualTo(200);
                assertThat(proxied.text()).contains("X-Forwarded-Proto: https", "proto=https");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void sniChoosesTheCertificateByName(String provider) throws Exception {
        try (PorticoServer server = start(provider, "")) {
            int port = TestServers.port(server);
            assertThat(peerName(connect(port, "a.test"))).isEqualTo("CN=a.test");
            assertThat(peerName(connect(port, "A.TEST"))).isEqualTo("CN=a.test");
            assertThat(peerName(connect(port, "x.b.test"))).isEqualTo("CN=*.b.test");
            assertThat(peerName(connect(port, "b.test"))).isEqualTo("CN=*.b.test");
            assertThat(peerName(connect(port, "y.x.b.test"))).as("a wildcard covers one label").isEqualTo(
                    "CN=default.test");
            assertThat(peerName(connect(port, "other.test"))).isEqualTo("CN=default.test");
            assertThat(peerName(connect(port, null))).as("no SNI").isEqualTo("CN=default.test");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void alpnOffersH2ThenHttp11AndHttp11WhenHttp2IsOff(String provider) throws Exception {
        try (PorticoServer server = start(provider, "")) {
            SSLContext ctx = TestCertificates.trusting(first, exact, wildcard);
            SSLSocket s = connectOffering(ctx, TestServers.port(server), "a.test", new String[] {"h2", "http/1.1"});
            assertThat(s.getApplicationProtocol()).isEqualTo("h2");
            s.close();
        }
        try (PorticoServer server = TestServers.start("listen = [ { address = \"127.0.0.1:0\", http2 = off, tls {"
                + " certificates = [ { cert = \"" + first.cert() + "\", key = \"" + first.key() + "\" } ],"
                + " provider = " + provider + " } } ]\n")) {
            SSLContext ctx = TestCertificates.trusting(first, exact, wildcard);
            SSLSocket s = connectOffering(ctx, TestServers.port(server), "a.test", new String[] {"h2", "http/1.1"});
            assertThat(s.getApplicationProtocol()).isEqualTo("http/1.1");
            s.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void onlyTheConfiguredVersionsAreOffered(String provider) throws Exception {
        try (PorticoServer server = start(provider, ", protocols = [TLSv1.3]")) {
            int port = TestServers.port(server);
            SSLSocket s = connect(port, "a.test", "TLSv1.3", "TLSv1.2");
            assertThat(s.getSession().getProtocol()).isEqualTo("TLSv1.3");
            s.close();
            assertThatThrownBy(() -> connect(port, "a.test", "TLSv1.2")).isInstanceOf(IOException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void aSessionIsResumed(String provider) throws Exception {
        try (PorticoServer server = start(provider, "")) {
            int port = TestServers.port(server);
            SSLContext ctx = TestCertificates.trusting(first, exact, wildcard);
            byte[] id;
            try (SSLSocket s = connect(ctx, port, "a.test", "TLSv1.2")) {
                id = s.getSession().getId();
            }
            try (SSLSocket s = connect(ctx, port, "a.test", "TLSv1.2")) {
                assertThat(s.getSession().getId()).as("the second connection resumed the first's session")
                        .isEqualTo(id);
            }
        }
    }

    @Test
    void theAccessLogNamesTheTlsVersionAndCipher() throws Exception {
        Path log = dir.resolve("tls-access.log");
        try (PorticoServer server = TestServers.start("access-log = \"" + log + "\"\n"
                + "listen = [ { address = \"127.0.0.1:0\", http2 = off, tls { certificates = [ { cert = \""
                + first.cert() + "\", key = \"" + first.key() + "\" } ], protocols = [TLSv1.3] } } ]\n"
                + "locations = [ { path = \"/\", return = 204 } ]\n")) {
            try (RawHttp c = new RawHttp(connect(TestServers.port(server), "default.test"))) {
                assertThat(c.send("GET /logged HTTP/1.1\r\nHost: default.test\r\n\r\n").read().status())
                        .isEqualTo(204);
            }
        }
        String line = Files.readAllLines(log).stream().filter(l -> l.contains("/logged")).findFirst().orElseThrow();
        assertThat(line).contains("ssl_protocol=TLSv1.3 ssl_cipher=TLS_");
    }

    @Test
    void plainHttpToTheTlsPortGetsAPlain400() throws Exception {
        try (PorticoServer server = start("auto", "");
                RawHttp c = new RawHttp(TestServers.port(server))) {
            Response r = c.send("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.text()).contains("plain HTTP sent to a TLS port");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void aHandshakeThatNeverEndsIsCutAtTheHandshakeTimeout(String provider) throws Exception {
        try (PorticoServer server = start(provider, ", handshake-timeout = 300ms");
                Socket s = new Socket("127.0.0.1", TestServers.port(server))) {
            s.setSoTimeout(5000);
            // A TLS handshake record header announcing 512 bytes, and then nothing.
            s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01});
            long start = System.nanoTime();
            int read;
            try {
                read = s.getInputStream().read();
            } catch (IOException reset) {
                read = -1;
            }
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(read).as("the server closed").isEqualTo(-1);
            assertThat(elapsedMs).as("closed at the handshake timeout, not at the 5 s read timeout").isLessThan(3000);
        }
    }

    @Test
    void providerAutoLogsTheEngineItChose() {
        assertThat(io.netty.handler.ssl.OpenSsl.isAvailable()).as("netty-tcnative loads on linux-x86_64").isTrue();
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /** Reads one request head from a blocking stream. */
    static final class Exchange {
        static String head(InputStream in) throws IOException {
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            int matched = 0;
            while (matched < 4) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                h.write(b);
                matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                        ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            return h.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
