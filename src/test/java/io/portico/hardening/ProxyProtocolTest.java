package io.portico.hardening;

import static io.portico.testing.ProxyHeaders.ascii;
import static io.portico.testing.ProxyHeaders.concat;
import static io.portico.testing.ProxyHeaders.tlv;
import static io.portico.testing.ProxyHeaders.v1;
import static io.portico.testing.ProxyHeaders.v2;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.ProxyHeaders;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listener with {@code proxy-protocol = true} behind a balancer on loopback: the client a v1 or v2 header names is
 * the client for $remote_addr, rate limits, access rules, the access log and the forwarding headers; UNKNOWN and
 * LOCAL keep the TCP peer; the SSL TLV makes the scheme https; a malformed or missing header, an untrusted peer and
 * a header that does not come in time close the connection without a byte of HTTP.
 */
class ProxyProtocolTest {
    private static final String GET_WHO = "GET /who HTTP/1.1\r\nHost: x\r\n\r\n";

    @TempDir
    Path dir;
    private RecordingUpstream upstream;
    private PorticoServer server;
    private int port;

    @BeforeEach
    void start() throws IOException {
        upstream = RecordingUpstream.tcp();
        server = TestServers.start(listen("trusted = [\"127.0.0.1/32\"], proxy-protocol-timeout = 300ms")
                + "access-log = \"" + dir.resolve("access.log") + "\"\n"
                + "rate-limits { one { rate = 1r/m, burst = 0, nodelay = true } }\n"
                + "upstreams { app { servers = [{ address = \"" + upstream.address() + "\", max-fails = 0 }],"
                + " retries = 0 } }\n"
                + "locations = [\n"
                + " { path = \"/who\", return = { status = 200, body = \"$remote_addr $scheme\" } },\n"
                + " { path = \"/limited\", rate-limit = one, return = { status = 200, body = \"ok\" } },\n"
                + " { path = \"/internal\", deny = [\"203.0.113.0/24\"], return = { status = 200, body = \"in\" } },\n"
                + " { path = \"/app/\", proxy = app }\n]\n");
        port = TestServers.port(server);
    }

    @AfterEach
    void stop() throws IOException {
        server.stop();
        upstream.close();
    }

    private static String listen(String proxyProtocol) {
        return "listen = [{ address = \"127.0.0.1:0\", proxy-protocol = true, " + proxyProtocol + " }]\n";
    }

    /** One request on a new connection that starts with {@code header}. */
    private Response exchange(byte[] header, String request) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return c.send(concat(header, ascii(request))).read();
        }
    }

    private String who(byte[] header) throws IOException {
        Response r = exchange(header, GET_WHO);
        assertThat(r.status()).isEqualTo(200);
        return r.text();
    }

    /** Whether a connection that sends {@code bytes} is closed without a byte of response. */
    private boolean closedSilently(byte[] bytes) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            c.send(bytes);
            return c.closedByServer();
        }
    }

    @Test
    void v1NamesTheClientForTcp4AndTcp6() throws IOException {
        assertThat(who(v1("PROXY TCP4 203.0.113.7 127.0.0.1 40001 80"))).isEqualTo("203.0.113.7 http");
        assertThat(who(v1("PROXY TCP6 2001:db8::7 ::1 40001 80"))).isEqualTo("2001:db8:0:0:0:0:0:7 http");
    }

    @Test
    void v1UnknownKeepsTheTcpPeer() throws IOException {
        assertThat(who(v1("PROXY UNKNOWN"))).isEqualTo("127.0.0.1 http");
        assertThat(who(v1("PROXY UNKNOWN ffff:f...f:ffff ffff:f...f:ffff 65535 65535"))).isEqualTo("127.0.0.1 http");
    }

    @Test
    void v2NamesTheClientAndIgnoresTlvsItDoesNotUse() throws IOException {
        byte[] tlvs = concat(tlv(ProxyHeaders.PP2_TYPE_ALPN, ascii("http/1.1")),
                tlv(ProxyHeaders.PP2_TYPE_AUTHORITY, ascii("example.com")), tlv(0xE0, new byte[] {1, 2, 3}));
        assertThat(who(v2("198.51.100.9", 50000, "127.0.0.1", 80, new byte[0]))).isEqualTo("198.51.100.9 http");
        assertThat(who(v2("198.51.100.9", 50000, "127.0.0.1", 80, tlvs))).isEqualTo("198.51.100.9 http");
        assertThat(who(v2("2001:db8::9", 50000, "::1", 80, tlvs))).isEqualTo("2001:db8:0:0:0:0:0:9 http");
    }

    @Test
    void v2LocalAndUnspecKeepTheTcpPeer() throws IOException {
        assertThat(who(ProxyHeaders.v2Local())).isEqualTo("127.0.0.1 http");
        assertThat(who(ProxyHeaders.v2Unspec())).isEqualTo("127.0.0.1 http");
        // HAProxy's health check with send-proxy-v2-ssl: LOCAL, AF_UNSPEC, and an SSL TLV saying "not TLS".
        assertThat(who(v2(0x20, 0x00, ProxyHeaders.sslTlv(0, "")))).isEqualTo("127.0.0.1 http");
    }

    @Test
    void theSslTlvMakesTheSchemeHttps() throws IOException {
        byte[] ssl = ProxyHeaders.sslTlv(ProxyHeaders.PP2_CLIENT_SSL, "TLSv1.3");
        assertThat(who(v2("198.51.100.9", 50000, "127.0.0.1", 443, ssl))).isEqualTo("198.51.100.9 https");
        // The TLV with the client-SSL bit clear: the client did not use TLS (HAProxy sends it so for a plain one).
        byte[] plain = ProxyHeaders.sslTlv(0, "TLSv1.3");
        assertThat(who(v2("198.51.100.9", 50000, "127.0.0.1", 80, plain))).isEqualTo("198.51.100.9 http");
    }

    @Test
    void theForwardingHeadersCarryTheProxyClient() throws IOException {
        byte[] ssl = ProxyHeaders.sslTlv(ProxyHeaders.PP2_CLIENT_SSL, "TLSv1.3");
        Response r = exchange(v2("198.51.100.9", 50000, "127.0.0.1", 443, ssl),
                "GET /app/x HTTP/1.1\r\nHost: shop.example\r\nX-Forwarded-For: 6.6.6.6\r\n\r\n");
        assertThat(r.status()).isEqualTo(200);
        String head = upstream.requests().get(0).head();
        assertThat(head).contains("\r\nX-Forwarded-For: 198.51.100.9\r\n", "\r\nX-Real-IP: 198.51.100.9\r\n",
                "\r\nX-Forwarded-Proto: https\r\n",
                "\r\nForwarded: for=198.51.100.9;host=\"shop.example\";proto=https\r\n");
        assertThat(head).doesNotContain("6.6.6.6");
    }

    @Test
    void twoProxyClientsThroughOneTcpPeerAreLimitedSeparately() throws IOException {
        byte[] a = v1("PROXY TCP4 203.0.113.1 127.0.0.1 40001 80");
        byte[] b = v1("PROXY TCP4 203.0.113.2 127.0.0.1 40002 80");
        String get = "GET /limited HTTP/1.1\r\nHost: x\r\n\r\n";
        assertThat(exchange(a, get).status()).isEqualTo(200);
        assertThat(exchange(a, get).status()).as("a's second request: a's bucket is empty").isEqualTo(429);
        assertThat(exchange(b, get).status()).as("b through the same TCP peer has its own bucket").isEqualTo(200);
        assertThat(exchange(b, get).status()).isEqualTo(429);
    }

    @Test
    void accessRulesSeeTheProxyClient() throws IOException {
        String get = "GET /internal HTTP/1.1\r\nHost: x\r\n\r\n";
        assertThat(exchange(v1("PROXY TCP4 203.0.113.7 127.0.0.1 40001 80"), get).status()).isEqualTo(403);
        assertThat(exchange(v1("PROXY TCP4 198.51.100.7 127.0.0.1 40001 80"), get).status()).isEqualTo(200);
    }

    @Test
    void theAccessLogShowsTheProxyClient() throws IOException {
        who(v1("PROXY TCP4 192.0.2.44 127.0.0.1 40001 80"));
        Path log = dir.resolve("access.log");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && !Files.readAllLines(log).isEmpty());
        assertThat(Files.readAllLines(log).get(0)).startsWith("192.0.2.44 - - [").contains("\"GET /who HTTP/1.1\" 200");
    }

    @Test
    void keepAliveRequestsAfterTheHeaderKeepItsClient() throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            c.send(concat(v1("PROXY TCP4 192.0.2.5 127.0.0.1 40001 80"), ascii(GET_WHO)));
            assertThat(c.read().text()).isEqualTo("192.0.2.5 http");
            c.send(GET_WHO);
            assertThat(c.read().text()).isEqualTo("192.0.2.5 http");
        }
    }

    @Test
    void theHeaderInPiecesIsStillOneHeader() throws IOException, InterruptedException {
        byte[] header = v2("198.51.100.9", 50000, "127.0.0.1", 80, tlv(0xE0, new byte[40]));
        try (RawHttp c = new RawHttp(port)) {
            for (int i = 0; i < header.length; i += 7) {
                c.send(java.util.Arrays.copyOfRange(header, i, Math.min(header.length, i + 7)));
                Thread.sleep(5);
            }
            assertThat(c.send(GET_WHO).read().text()).isEqualTo("198.51.100.9 http");
        }
    }

    @Test
    void aMissingOrMalformedHeaderClosesTheConnection() throws IOException {
        assertThat(closedSilently(ascii(GET_WHO))).as("plain HTTP, no header").isTrue();
        assertThat(closedSilently(ascii("PROXY TCP4 999.0.0.1 127.0.0.1 40001 80\r\n" + GET_WHO))).isTrue();
        assertThat(closedSilently(ascii("PROXY TCP4 203.0.113.7 127.0.0.1 70000 80\r\n" + GET_WHO))).isTrue();
        assertThat(closedSilently(ascii("PROXY TCP4 2001:db8::1 127.0.0.1 1 80\r\n" + GET_WHO))).isTrue();
        assertThat(closedSilently(ascii("PROXY TCP5 203.0.113.7 127.0.0.1 1 80\r\n" + GET_WHO))).isTrue();
        assertThat(closedSilently(ascii("PROXY TCP4 " + "1".repeat(120) + "\r\n"))).as("over v1's 107 bytes").isTrue();
        assertThat(closedSilently(concat(v2(0x31, 0x11, new byte[12]), ascii(GET_WHO)))).as("version 3").isTrue();
        assertThat(closedSilently(concat(v2(0x21, 0x11, new byte[4]), ascii(GET_WHO))))
                .as("TCP4 with fewer bytes than its addresses").isTrue();
        assertThat(closedSilently(concat(v2(0x2F, 0x11, new byte[12]), ascii(GET_WHO)))).as("command 0xF").isTrue();
        assertThat(closedSilently(concat(v2(0x21, 0x11, new byte[8000])))).as("over 4 KiB of TLVs").isTrue();
        // Still serving.
        assertThat(who(v1("PROXY TCP4 203.0.113.7 127.0.0.1 40001 80"))).isEqualTo("203.0.113.7 http");
    }

    @Test
    void aHeaderThatDoesNotComeInTimeClosesTheConnection() throws IOException {
        for (byte[] partial : List.of(new byte[0], ascii("PROXY TCP4 203.0.113.7"),
                java.util.Arrays.copyOf(v2("198.51.100.9", 50000, "127.0.0.1", 80, new byte[0]), 20))) {
            try (RawHttp c = new RawHttp(port)) {
                long start = System.nanoTime();
                c.send(partial);
                assertThat(c.closedByServer()).isTrue();
                long millis = (System.nanoTime() - start) / 1_000_000;
                assertThat(millis).as("proxy-protocol-timeout = 300ms").isBetween(250L, 3000L);
            }
        }
    }

    @Test
    void aPeerOutsideTrustedIsClosedAndLoggedOnceRateLimited() throws IOException {
        try (LogCapture logs = new LogCapture("io.portico.server.ProxyProtocolHandler")) {
            PorticoServer other = TestServers.start(listen("trusted = [\"10.0.0.0/8\"]")
                    + "locations = [ { path = \"/\", return = { status = 200, body = \"ok\" } } ]\n");
            try {
                int otherPort = TestServers.port(other);
                for (int i = 0; i < 5; i++) {
                    try (RawHttp c = new RawHttp(otherPort)) {
                        c.send(concat(v1("PROXY TCP4 10.1.2.3 127.0.0.1 40001 80"), ascii(GET_WHO)));
                        assertThat(c.closedByServer()).as("a good header from an untrusted peer").isTrue();
                    }
                }
            } finally {
                other.stop();
            }
            assertThat(logs.lines()).hasSize(1);
            assertThat(logs.lines().get(0)).startsWith("WARN PROXY protocol: closed the connection from /127.0.0.1:")
                    .endsWith(": not in the listener's trusted");
        }
    }

    @Test
    void onATlsListenerTheHeaderComesBeforeTheClientHello() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "a", List.of("localhost"));
        PorticoServer tls = TestServers.start("listen = [{ address = \"127.0.0.1:0\", proxy-protocol = true,"
                + " trusted = [\"127.0.0.0/8\"], tls { certificates = [ { cert = \"" + cert.cert() + "\", key = \""
                + cert.key() + "\" } ] } }]\n"
                + "locations = [ { path = \"/who\", return = { status = 200, body = \"$remote_addr $scheme\" } } ]\n");
        try {
            int tlsPort = TestServers.port(tls);
            SSLContext context = TestCertificates.trusting(cert);
            Socket plain = new Socket();
            plain.connect(new InetSocketAddress("127.0.0.1", tlsPort), 2000);
            plain.getOutputStream().write(v2("198.51.100.20", 50000, "127.0.0.1", 443, new byte[0]));
            SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost", tlsPort, true);
            socket.startHandshake();
            try (RawHttp c = new RawHttp(socket)) {
                Response r = c.send(GET_WHO).read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.text()).isEqualTo("198.51.100.20 https");
            }
        } finally {
            tls.stop();
        }
    }
}
