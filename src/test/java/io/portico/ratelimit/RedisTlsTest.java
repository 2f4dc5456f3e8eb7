package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.server.ListenException;
import io.portico.server.PorticoServer;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestServers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rediss:// and rediss-cluster:// against real redis-servers speaking TLS: the server's certificate must chain to
 * store-ca and name the host; a server signed by another CA, or named otherwise, stops the start.
 */
class RedisTlsTest {
    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<PorticoServer> servers = new ArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        servers.forEach(PorticoServer::close);
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    @Test
    void aServerWhoseCertificateChainsToStoreCaDecides() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "redis", List.of("localhost"));
        RedisServer redis = RedisServer.startTls(cert.cert(), cert.key());
        closing.add(redis::stop);
        String zone = "rediss://localhost:" + redis.tlsPort();
        int port = start(config("tls1", zone, cert.cert(), "rate = 1r/m, burst = 1, nodelay = true"));
        assertThat(List.of(get(port, "/"), get(port, "/"), get(port, "/")))
                .as("Redis's bucket of 2, over TLS").containsExactly(204, 204, 429);
        assertThat(get(port, "/metrics-failures")).isEqualTo(0);
    }

    @Test
    void aServerSignedByAnotherCaIsRefused() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "redis", List.of("localhost"));
        TestCertificates.Issued other = TestCertificates.issue(dir, "other", List.of("localhost"));
        RedisServer redis = RedisServer.startTls(cert.cert(), cert.key());
        closing.add(redis::stop);
        String zone = "rediss://localhost:" + redis.tlsPort();
        assertThatThrownBy(() -> PorticoServer.start(TestServers.config(
                        config("tls2", zone, other.cert(), "rate = 10r/s"), Path.of("."))))
                .isInstanceOf(ListenException.class)
                .hasMessageContaining("rate-limits.tls2.store: cannot connect to " + zone);
    }

    /**
     * Two zones naming one URI with different store-ca files each connect with their own certificate check: the
     * zone whose CA did not sign the server stops the start. (With one connection per URI, as before, the second
     * zone used the first one's connection, and its CA was never checked.)
     */
    @Test
    void zonesOnOneUriWithDifferentCasEachCheckTheirOwn() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "redis", List.of("localhost"));
        TestCertificates.Issued other = TestCertificates.issue(dir, "other", List.of("localhost"));
        RedisServer redis = RedisServer.startTls(cert.cert(), cert.key());
        closing.add(redis::stop);
        String uri = "rediss://localhost:" + redis.tlsPort();
        String conf = "rate-limits {\n"
                + " trusting { rate = 10r/s, store = \"" + uri + "\", store-ca = \"" + cert.cert() + "\" }\n"
                + " other { rate = 10r/s, store = \"" + uri + "\", store-ca = \"" + other.cert() + "\" }\n}\n"
                + "locations = [ { path = \"/a/\", return = 204, rate-limit = trusting },"
                + " { path = \"/b/\", return = 204, rate-limit = other } ]";
        assertThatThrownBy(() -> PorticoServer.start(TestServers.config(conf, Path.of("."))))
                .isInstanceOf(ListenException.class)
                .hasMessageContaining("rate-limits.other.store: cannot connect to " + uri);
    }

    @Test
    void aServerNamedOtherwiseIsRefused() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "redis", List.of("redis.example"));
        RedisServer redis = RedisServer.startTls(cert.cert(), cert.key());
        closing.add(redis::stop);
        String zone = "rediss://localhost:" + redis.tlsPort();
        assertThatThrownBy(() -> PorticoServer.start(TestServers.config(
                        config("tls3", zone, cert.cert(), "rate = 10r/s"), Path.of("."))))
                .isInstanceOf(ListenException.class)
                .hasMessageContaining("cannot connect to " + zone);
    }

    @Test
    void aClusterOverTlsDecidesAndRefusesAnotherCa() throws Exception {
        TestCertificates.Issued cert = TestCertificates.issue(dir, "cluster", List.of("localhost", "127.0.0.1"));
        TestCertificates.Issued other = TestCertificates.issue(dir, "other", List.of("localhost", "127.0.0.1"));
        RedisCluster cluster = RedisCluster.start(new RedisCluster.Tls(cert.cert(), cert.key(), cert.cert()));
        closing.add(cluster);
        assertThat(cluster.uri()).startsWith("rediss-cluster://");
        int port = start(config("tls4", cluster.uri(), cert.cert(), "rate = 1r/m, burst = 1, nodelay = true"));
        assertThat(List.of(get(port, "/"), get(port, "/"), get(port, "/")))
                .as("the cluster's bucket of 2, over TLS").containsExactly(204, 204, 429);
        assertThat(get(port, "/metrics-failures")).isEqualTo(0);
        assertThatThrownBy(() -> PorticoServer.start(TestServers.config(
                        config("tls5", cluster.uri(), other.cert(), "rate = 10r/s"), Path.of("."))))
                .isInstanceOf(ListenException.class)
                .hasMessageContaining("rate-limits.tls5.store: cannot connect to rediss-cluster://");
    }

    private static String config(String name, String uri, Path ca, String zone) {
        return "rate-limits { " + name + " { " + zone + ", store = \"" + uri + "\", store-ca = \"" + ca + "\" } }\n"
                + "locations = [ { exact = \"/metrics\", metrics = prometheus },"
                + " { path = \"/\", return = 204, rate-limit = " + name + " } ]";
    }

    private int start(String conf) {
        PorticoServer server = TestServers.start(conf);
        servers.add(server);
        return TestServers.port(server);
    }

    /** The status of a GET, or for /metrics-failures the zone's store failures. */
    private int get(int port, String path) throws Exception {
        boolean failures = path.equals("/metrics-failures");
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + (failures ? "/metrics" : path))).timeout(Duration.ofSeconds(10)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (!failures) {
            return response.statusCode();
        }
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("portico_rate_limit_store_failures_total\\{zone=\"tls\\d\"\\} (\\d+)")
                .matcher(response.body());
        assertThat(m.find()).isTrue();
        return Integer.parseInt(m.group(1));
    }
}
