package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.PorticoServer;
import io.portico.testing.HAProxyProcess;
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
 * A real HAProxy in TCP mode in front of a {@code proxy-protocol} listener, with {@code send-proxy} (v1),
 * {@code send-proxy-v2} and {@code send-proxy-v2-ssl}, and health checks that send the PROXY header too. The clients
 * connect from 127.0.0.2 and 127.0.0.3 while HAProxy connects to Portico from 127.0.0.1, so what Portico reports
 * can only have come from the header.
 */
class HAProxyFrontTest {
    private static final String GET_WHO = "GET /who HTTP/1.1\r\nHost: x\r\n\r\n";

    @TempDir
    Path dir;
    private PorticoServer portico;
    private int porticoPort;
    private HAProxyProcess haproxy;

    @BeforeEach
    void startPortico() {
        HAProxyProcess.binary();
        portico = TestServers.start("listen = [{ address = \"127.0.0.1:0\", proxy-protocol = true,"
                + " trusted = [\"127.0.0.1/32\"] }]\n"
                + "access-log = \"" + dir.resolve("access.log") + "\"\n"
                + "rate-limits { one { rate = 1r/m, burst = 0, nodelay = true } }\n"
                + "locations = [\n"
                + " { path = \"/who\", return = { status = 200, body = \"$remote_addr $scheme\" } },\n"
                + " { path = \"/health\", return = { status = 200, body = \"up\" } },\n"
                + " { path = \"/limited\", rate-limit = one, return = { status = 200, body = \"ok\" } }\n]\n");
        porticoPort = TestServers.port(portico);
    }

    @AfterEach
    void stop() {
        if (haproxy != null) {
            haproxy.close();
        }
        portico.stop();
    }

    /** HAProxy's configuration: TCP mode, one server (Portico) with {@code serverOptions}, health checked. */
    private String config(int port, String bindOptions, String serverOptions) {
        return "global\n  maxconn 2000\n  log stdout format raw local0 info\n"
                + "defaults\n  log global\n  option tcplog\n  mode tcp\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n  timeout check 2s\n"
                + "frontend fe\n  bind 127.0.0.1:" + port + " " + bindOptions + "\n  default_backend portico\n"
                + "backend portico\n  option httpchk\n"
                + "  http-check send meth GET uri /health ver HTTP/1.1 hdr Host x\n"
                + "  server p1 127.0.0.1:" + porticoPort + " " + serverOptions
                + " check check-send-proxy inter 300ms\n";
    }

    private void startHAProxy(String bindOptions, String serverOptions) throws IOException {
        haproxy = HAProxyProcess.start(dir, port -> config(port, bindOptions, serverOptions));
    }

    /** A connection to HAProxy from {@code localAddress}, a loopback address other than HAProxy's own. */
    private Socket from(String localAddress) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(localAddress, 0));
        s.connect(new InetSocketAddress("127.0.0.1", haproxy.port()), 2000);
        return s;
    }

    private Response get(String localAddress, String request) throws IOException {
        try (RawHttp c = new RawHttp(from(localAddress))) {
            return c.send(request).read();
        }
    }

    private List<String> accessLog() throws IOException {
        Path log = dir.resolve("access.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Test
    void sendProxyV1NamesTheClient() throws IOException {
        startHAProxy("", "send-proxy");
        assertThat(get("127.0.0.2", GET_WHO).text()).isEqualTo("127.0.0.2 http");
        assertThat(get("127.0.0.3", GET_WHO).text()).isEqualTo("127.0.0.3 http");
        await().atMost(Duration.ofSeconds(10)).until(() -> accessLog().stream()
                .anyMatch(l -> l.startsWith("127.0.0.2 - - [") && l.contains("\"GET /who HTTP/1.1\" 200")));
    }

    @Test
    void sendProxyV2NamesTheClientAndItsHealthChecksPass() throws IOException {
        startHAProxy("", "send-proxy-v2");
        assertThat(get("127.0.0.2", GET_WHO).text()).isEqualTo("127.0.0.2 http");
        // The check's own connection says LOCAL (v2): Portico serves it as from HAProxy itself.
        await().atMost(Duration.ofSeconds(10)).until(() -> accessLog().stream()
                .anyMatch(l -> l.startsWith("127.0.0.1 - - [") && l.contains("\"GET /health HTTP/1.1\" 200")));
    }

    @Test
    void sendProxyV2SslMakesTheSchemeHttpsWhereHAProxyTerminatedTls() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "lb", List.of("localhost"));
        Path pem = dir.resolve("lb-combined.pem");
        Files.writeString(pem, Files.readString(cert.cert()) + "\n" + Files.readString(cert.key()));
        startHAProxy("ssl crt " + pem, "send-proxy-v2-ssl");
        SSLContext context = TestCertificates.trusting(cert);
        Socket plain = from("127.0.0.2");
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, "localhost", haproxy.port(), true);
        tls.startHandshake();
        try (RawHttp c = new RawHttp(tls)) {
            assertThat(c.send(GET_WHO).read().text()).isEqualTo("127.0.0.2 https");
        } catch (IOException e) {
            throw new AssertionError("HAProxy said: " + haproxy.output() + "\nPortico logged: " + accessLog(), e);
        }
    }

    /** HTTP/2 streams (h2c, and h2 through TLS passed through) take the client of their connection's header. */
    @Test
    void http2StreamsSeeTheProxyClient() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "p", List.of("localhost"));
        PorticoServer h2 = TestServers.start("listen = [\n"
                + " { address = \"127.0.0.1:0\", proxy-protocol = true, trusted = [\"127.0.0.1/32\"], http2 = on }\n"
                + " { address = \"127.0.0.1:0\", proxy-protocol = true, trusted = [\"127.0.0.1/32\"],"
                + " tls { certificates = [ { cert = \"" + cert.cert() + "\", key = \"" + cert.key() + "\" } ] } }\n]\n"
                + "locations = [ { path = \"/who\", return = { status = 200, body = \"$remote_addr $scheme\" } } ]\n");
        try {
            int plainPort = h2.localAddresses().get(0).getPort();
            int tlsPort = h2.localAddresses().get(1).getPort();
            try (HAProxyProcess plain = HAProxyProcess.start(dir, port -> "defaults\n  mode tcp\n  timeout connect 2s\n"
                    + "  timeout client 30s\n  timeout server 30s\n"
                    + "listen h2c\n  bind 127.0.0.1:" + port + "\n  server p 127.0.0.1:" + plainPort + " send-proxy-v2\n");
                    HAProxyProcess tls = HAProxyProcess.start(dir, port -> "defaults\n  mode tcp\n"
                    + "  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n"
                    + "listen h2\n  bind 127.0.0.1:" + port + "\n  server p 127.0.0.1:" + tlsPort + " send-proxy\n")) {
                assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + plain.port() + "/who"))
                        .isEqualTo("127.0.0.2 http\n2 200");
                assertThat(curl("--http2", "https://127.0.0.1:" + tls.port() + "/who"))
                        .isEqualTo("127.0.0.2 https\n2 200");
            }
        } finally {
            h2.stop();
        }
    }

    /** curl from 127.0.0.2, printing the body, then the HTTP version and status. */
    private static String curl(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("curl", "-sS", "-k", "--max-time", "10",
                "--interface", "127.0.0.2", "-w", "\n%{http_version} %{http_code}"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(p.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void twoClientsThroughHAProxyAreLimitedSeparately() throws IOException {
        startHAProxy("", "send-proxy-v2");
        String get = "GET /limited HTTP/1.1\r\nHost: x\r\n\r\n";
        assertThat(get("127.0.0.2", get).status()).isEqualTo(200);
        assertThat(get("127.0.0.2", get).status()).isEqualTo(429);
        assertThat(get("127.0.0.3", get).status()).as("another client through the same balancer").isEqualTo(200);
    }
}
