package io.portico.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestCertificates.Issued;
import io.portico.testing.TestServers;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Virtual hosts on a plain and a TLS listener: a request uses the locations of the host its Host names (exact, then
 * the longest wildcard), any other the top-level ones; over TLS a Host of another host than its SNI's gets 421.
 */
class VirtualHostTest {
    static Path dir;
    static Issued example;
    static Issued other;
    static PorticoServer server;
    static int plainPort;
    static int tlsPort;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("portico-vhosts");
        example = TestCertificates.issue(dir, "example", List.of("example.test", "*.example.test"));
        other = TestCertificates.issue(dir, "other", List.of("other.test"));
        server = TestServers.start("listen = [\"127.0.0.1:0\", { address = \"127.0.0.1:0\", tls { certificates = [\n"
                + "  { cert = \"" + example.cert() + "\", key = \"" + example.key() + "\" }\n"
                + "  { cert = \"" + other.cert() + "\", key = \"" + other.key() + "\" } ] } } ]\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"default\" } } ]\n"
                + "hosts = [\n"
                + " { names = [\"example.test\", \"www.example.test\"], locations = ["
                + "   { path = \"/\", return = { status = 200, body = \"example\" } } ] }\n"
                + " { names = [\"*.example.test\"], locations = ["
                + "   { path = \"/\", return = { status = 200, body = \"any example\" } },"
                + "   { exact = \"/only-here\", return = { status = 200, body = \"wildcard only\" } } ] }\n"
                + " { names = [\"*.deep.example.test\"], locations = ["
                + "   { path = \"/\", return = { status = 200, body = \"deep\" } } ] }\n"
                + " { names = [\"other.test\"], locations = ["
                + "   { path = \"/\", return = { status = 200, body = \"other\" } } ] }\n"
                + "]\n");
        List<InetSocketAddress> addresses = server.localAddresses();
        plainPort = addresses.get(0).getPort();
        tlsPort = addresses.get(1).getPort();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static Response get(RawHttp c, String host, String path) throws Exception {
        return c.send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").read();
    }

    static String body(String host, String path) throws Exception {
        try (RawHttp c = new RawHttp(plainPort)) {
            return get(c, host, path).text();
        }
    }

    @Test
    void aRequestUsesTheLocationsOfItsHost() throws Exception {
        assertThat(body("example.test", "/")).isEqualTo("example");
        assertThat(body("EXAMPLE.test:8080", "/")).isEqualTo("example");
        assertThat(body("www.example.test", "/")).as("an exact name beats a wildcard").isEqualTo("example");
        assertThat(body("a.example.test", "/")).isEqualTo("any example");
        assertThat(body("a.b.example.test", "/only-here")).isEqualTo("wildcard only");
        assertThat(body("x.deep.example.test", "/")).as("the longest wildcard").isEqualTo("deep");
        assertThat(body("other.test", "/")).isEqualTo("other");
        assertThat(body("nobody.test", "/")).isEqualTo("default");
        assertThat(body("127.0.0.1", "/")).isEqualTo("default");
        assertThat(body("example.test", "/only-here")).as("another host's location does not leak")
                .isEqualTo("example");
    }

    @Test
    void anHttp10RequestWithoutHostUsesTheDefaultHost() throws Exception {
        try (RawHttp c = new RawHttp(plainPort)) {
            assertThat(c.send("GET / HTTP/1.0\r\n\r\n").read().text()).isEqualTo("default");
        }
    }

    static RawHttp tls(String sni) throws Exception {
        SSLContext ctx = TestCertificates.trusting(example, other);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", tlsPort);
        SSLParameters p = s.getSSLParameters();
        p.setServerNames(List.of(new SNIHostName(sni)));
        s.setSSLParameters(p);
        s.startHandshake();
        return new RawHttp(s);
    }

    @Test
    void overTlsTheHostMustBeTheOneSniChose() throws Exception {
        try (RawHttp c = tls("other.test")) {
            assertThat(get(c, "other.test", "/").text()).isEqualTo("other");
            Response misdirected = get(c, "example.test", "/");
            assertThat(misdirected.status()).isEqualTo(421);
            assertThat(get(c, "other.test:443", "/").text()).as("the connection goes on").isEqualTo("other");
        }
        try (RawHttp c = tls("a.example.test")) {
            assertThat(get(c, "b.example.test", "/").text()).as("one host, two of its names").isEqualTo(
                    "any example");
            assertThat(get(c, "example.test", "/").status()).isEqualTo(421);
        }
        try (RawHttp c = tls("unknown.test")) {
            assertThat(get(c, "unknown.test", "/").text()).isEqualTo("default");
            assertThat(get(c, "other.test", "/").status()).as("SNI chose the default host").isEqualTo(421);
        }
    }

    @Test
    void aHostCanAnswerOnSomeListenersOnly() throws Exception {
        // nginx's usual pair: server { listen 80; return 301 https://...; } beside server { listen 443 ssl; ... }
        try (PorticoServer s = TestServers.start("listen = [\"127.0.0.2:0\", { address = \"127.0.0.1:0\", tls {"
                + " certificates = [ { cert = \"" + example.cert() + "\", key = \"" + example.key() + "\" } ] } } ]\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"default\" } } ]\n"
                + "hosts = [\n"
                + " { names = [\"example.test\"], listen = [\"127.0.0.2:0\"], locations = [ { path = \"/\","
                + "   return = { status = 301, location = \"https://$host$request_uri\" } } ] }\n"
                + " { names = [\"example.test\"], listen = [\"127.0.0.1:0\"], locations = [ { path = \"/\","
                + "   return = { status = 200, body = \"secure\" } } ] }\n"
                + "]\n")) {
            int plain = s.localAddresses().get(0).getPort();
            int secure = s.localAddresses().get(1).getPort();
            try (RawHttp c = new RawHttp(new java.net.Socket("127.0.0.2", plain))) {
                Response r = get(c, "example.test", "/a?b=1");
                assertThat(r.status()).isEqualTo(301);
                assertThat(r.header("location")).isEqualTo("https://example.test/a?b=1");
                assertThat(get(c, "other.test", "/").text()).isEqualTo("default");
            }
            SSLContext ctx = TestCertificates.trusting(example);
            SSLSocket tls = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", secure);
            SSLParameters p = tls.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName("example.test")));
            tls.setSSLParameters(p);
            try (RawHttp c = new RawHttp(tls)) {
                assertThat(get(c, "example.test", "/a").text()).isEqualTo("secure");
            }
        }
        assertThatThrownBy(() -> TestServers.config("listen = [\"127.0.0.2:0\", \"127.0.0.3:0\"]\n"
                + "hosts = [ { names = [\"a.test\"], listen = [\"127.0.0.2:0\"] },"
                + " { names = [\"a.test\"], listen = [\"127.0.0.3:0\"] }, { names = [\"a.test\"] },"
                + " { names = [\"b.test\"], listen = [\"127.0.0.9:80\"] } ]", dir))
                .hasMessageContaining("hosts.2.names: 'a.test' is already a name of hosts.0 on the same listener")
                .hasMessageContaining("hosts.3.listen: '127.0.0.9:80' is not one of the listeners")
                .message().doesNotContain("hosts.1.names");
    }

    @Test
    void aDefaultHostAnswersUnknownNamesOnItsListeners() throws Exception {
        // nginx's `listen 80 default_server; return 301 https://...` beside the site on another listener
        try (PorticoServer s = TestServers.start("listen = [\"127.0.0.2:0\", \"127.0.0.1:0\"]\n"
                + "locations = [ { path = \"/\", return = { status = 200, body = \"site\" } } ]\n"
                + "hosts = [ { names = [\"redirect.test\"], listen = [\"127.0.0.2:0\"], default = true, locations = ["
                + "   { path = \"/\", return = { status = 301, location = \"https://$host$request_uri\" } } ] } ]\n")) {
            int redirecting = s.localAddresses().get(0).getPort();
            int site = s.localAddresses().get(1).getPort();
            try (RawHttp c = new RawHttp(new java.net.Socket("127.0.0.2", redirecting))) {
                assertThat(get(c, "anything.test", "/x").header("location")).isEqualTo("https://anything.test/x");
            }
            try (RawHttp c = new RawHttp(site)) {
                assertThat(get(c, "anything.test", "/x").text()).as("other listeners keep the top level")
                        .isEqualTo("site");
            }
        }
        assertThatThrownBy(() -> TestServers.config("listen = [\"127.0.0.2:0\"]\n hosts = ["
                + " { names = [\"a.test\"], default = true }, { names = [\"b.test\"], default = true } ]", dir))
                .hasMessageContaining("hosts.1.default: a second default host on 127.0.0.2:0");
    }

    @Test
    void namesAreCheckedAtLoad() {
        assertThatThrownBy(() -> TestServers.config("hosts = [ { names = [\"a.test:80\"], locations = [] },"
                + " { names = [\"b.test\"] }, { names = [\"B.test\"] }, { names = [] } ]", dir))
                .hasMessageContaining("hosts.0.names: 'a.test:80' (expected: a host name such as example.com or"
                        + " *.example.com, without a port)")
                .hasMessageContaining("hosts.2.names: 'B.test' is already a name of hosts.1 on the same listener (expected: each name"
                        + " in one host per listener)")
                .hasMessageContaining("hosts.3.names: no name");
    }
}
