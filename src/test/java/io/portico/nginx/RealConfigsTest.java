package io.portico.nginx;

import static io.portico.nginx.Imports.load;
import static io.portico.nginx.Imports.unmapped;
import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.LocationConfig;
import io.portico.config.LocationConfig.Match;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.config.TargetConfig;
import io.portico.testing.TestCertificates;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configurations Portico's users have: the seed's Debian site (sites-enabled/default with limit_req, an
 * alias for the themes and uwsgi_pass to the app, included by a stock nginx.conf through a glob) and the peers'
 * nginx.conf the benchmarks run. Each is imported, loaded, and checked for what nginx does with it.
 */
class RealConfigsTest {
    @TempDir
    Path dir;

    private static String resource(String name) throws Exception {
        try (InputStream in = RealConfigsTest.class.getResourceAsStream("/nginx/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The whole output, with the test's folder written @DIR@, equals the golden file in src/test/resources/nginx
     * (regenerate with -Dimport.golden.update=true after a deliberate change, and read the diff).
     */
    private void assertGolden(NginxImport.Result r, String golden) throws Exception {
        String actual = r.hocon().replace(dir.toString(), "@DIR@");
        Path file = Path.of("src/test/resources/nginx", golden);
        if (Boolean.getBoolean("import.golden.update")) {
            Files.writeString(file, actual);
            return;
        }
        assertThat(actual).isEqualTo(Files.readString(file));
    }

    private static LocationConfig location(PorticoConfig c, String path) {
        return c.locations().stream().filter(l -> l.match().kind() == Match.Kind.PREFIX
                && l.match().value().equals(path)).findFirst().orElseThrow();
    }

    @Test
    void theSeedsDebianSiteBehindAStockNginxConf() throws Exception {
        Path html = Files.createDirectories(dir.resolve("var/www/html"));
        Path themes = Files.createDirectories(dir.resolve("CTFd/themes"));
        Files.createDirectories(dir.resolve("conf.d"));
        Files.createDirectories(dir.resolve("sites-enabled"));
        Files.writeString(dir.resolve("sites-enabled/default"), resource("seed-000-sites-default")
                .replace("/var/www/html", html.toString())
                .replace("/home/dc/CTFd_M/CTFd/themes/", themes + "/"));
        Files.writeString(dir.resolve("nginx.conf"), "user www-data;\nworker_processes auto;\npid /run/nginx.pid;\n"
                + "events {\n\tworker_connections 768;\n}\n"
                + "http {\n\tsendfile on;\n\ttcp_nopush on;\n\ttypes_hash_max_size 2048;\n"
                + "\tinclude mime.types;\n\tdefault_type application/octet-stream;\n"
                + "\tssl_protocols TLSv1 TLSv1.1 TLSv1.2;\n\tssl_prefer_server_ciphers on;\n"
                + "\taccess_log " + dir.resolve("access.log") + ";\n\terror_log /var/log/nginx/error.log;\n"
                + "\tgzip on;\n\tinclude conf.d/*.conf;\n\tinclude sites-enabled/*;\n}\n");
        NginxImport.Result r = NginxImport.translate(dir.resolve("nginx.conf"));

        // uwsgi_pass, its uwsgi_param and uwsgi_read_timeout map since uwsgi upstreams landed (issue 26)
        assertThat(unmapped(r)).containsExactlyInAnyOrder("nginx.conf:17 gzip");
        PorticoConfig c = load(r, dir);
        RateLimitZoneConfig allips = c.rateLimits().get("allips");
        assertThat(allips.requests()).isEqualTo(50);
        assertThat(allips.per()).isEqualTo(Duration.ofSeconds(1));
        assertThat(allips.burst()).isEqualTo(20);
        assertThat(allips.nodelay()).isTrue();
        assertThat(allips.status()).as("nginx's default").isEqualTo(503);
        assertThat(allips.maxClients()).isEqualTo(100L * 1024 * 1024 / 64);
        LocationConfig themesLoc = location(c, "/themes/");
        TargetConfig.Static t = (TargetConfig.Static) themesLoc.target();
        assertThat(t.alias()).isTrue();
        assertThat(t.dir()).isEqualTo(themes);
        assertThat(themesLoc.rateLimits()).as("the server's limit_req holds in every location").containsExactly("allips");
        LocationConfig app = location(c, "/");
        TargetConfig.Proxy proxy = (TargetConfig.Proxy) app.target();
        assertThat(c.upstreams().get(proxy.upstream()).servers().get(0).address()).hasToString("127.0.0.1:5000");
        assertThat(app.rateLimits()).containsExactly("allips");
        assertThat(c.listen()).extracting(Object::toString).containsExactly("*:80");
        assertThat(c.workers()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(c.accessLog().file()).contains(dir.resolve("access.log"));
        assertThat(r.report().notes()).extracting(Report.Item::where).contains("nginx.conf:11");
        assertGolden(r, "seed-000.expected.conf");
        assertThat(c.upstreams().get(proxy.upstream()).protocol()).hasToString("UWSGI");
        assertThat(c.upstreams().get(proxy.upstream()).readTimeout()).as("uwsgi_read_timeout 100")
                .isEqualTo(Duration.ofSeconds(100));
        assertThat(proxy.params()).containsKeys("UWSGI_PYHOME", "UWSGI_CHDIR", "UWSGI_SCRIPT");
        assertThat(proxy.params().get("UWSGI_SCRIPT").text()).isEqualTo("manage:app");
        assertThat(r.hocon()).contains("# sites-enabled/default:14: location /themes/ { alias " + themes + "/; }");
    }

    @Test
    void thePeersNginxConf() throws Exception {
        Path site = Files.createDirectories(dir.resolve("site"));
        Files.writeString(site.resolve("1k.txt"), "x".repeat(1024));
        Files.createDirectories(dir.resolve("run"));
        Files.writeString(dir.resolve("nginx.conf"), resource("peers-nginx.conf.tpl").replace("@WORKERS@", "1")
                .replace("@RUN@", dir.resolve("run").toString()).replace("@DIR@", dir.toString())
                .replace("@PORT@", "18080").replace("@APP@", "18000").replace("@FAST@", "18001"));
        NginxImport.Result r = NginxImport.translate(dir.resolve("nginx.conf"));

        // The stand-in app on its own port is a second default server: Portico has one set of listeners.
        assertThat(unmapped(r)).containsExactly("nginx.conf:18 server");
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).extracting(Object::toString).containsExactly("127.0.0.1:18080");
        assertThat(c.workers()).isEqualTo(1);
        assertThat(c.accessLog().kind().name()).isEqualTo("OFF");
        assertThat(c.limits().keepaliveRequests()).isEqualTo(100000);
        TargetConfig.Static stat = (TargetConfig.Static) location(c, "/static/").target();
        assertThat(stat.alias()).isTrue();
        assertThat(stat.dir()).isEqualTo(site);
        assertThat(c.locations()).as("= /static/1k.txt only turned sendfile off")
                .noneMatch(l -> l.match().kind() == Match.Kind.EXACT);
        LocationConfig limited = location(c, "/limited/");
        assertThat(limited.rateLimits()).containsExactly("allips");
        RateLimitZoneConfig allips = c.rateLimits().get("allips");
        assertThat(allips.burst()).isEqualTo(20);
        assertThat(allips.nodelay()).isTrue();
        assertThat(allips.requests()).isEqualTo(50);
        TargetConfig.Proxy fast = (TargetConfig.Proxy) location(c, "/fast/").target();
        assertThat(fast.upstream()).isEqualTo("fast");
        assertThat(c.upstreams().get("fast").keepalive()).isEqualTo(64);
        assertThat(c.upstreams().get("fast").servers().get(0).address()).hasToString("127.0.0.1:18001");
        TargetConfig.Proxy app = (TargetConfig.Proxy) location(c, "/").target();
        assertThat(app.hostFromUpstream()).isFalse();
        assertThat(app.forwardedHeaders()).extracting(Object::toString).containsExactly("X_FORWARDED_FOR");
        assertThat(c.upstreams().get(app.upstream()).readTimeout()).isEqualTo(Duration.ofSeconds(100));
        assertThat(fast.hostFromUpstream()).as("nginx sends $proxy_host").isTrue();
        assertGolden(r, "peers.expected.conf");
    }

    /**
     * A certbot-style site: the port-80 redirect beside the TLS site with HTTP/2, both on IPv4 and IPv6. The two
     * servers of one name are the top level and a host on port 80, the default there (so a name no server has
     * gets the redirect on port 80, as in nginx).
     */
    @Test
    void aCertbotStyleTlsSiteWithHttp2() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        Path live = Files.createDirectories(dir.resolve("letsencrypt/live/example.com"));
        TestCertificates.Issued cert = TestCertificates.issue(live, "fullchain", List.of("example.com",
                "www.example.com"));
        Files.writeString(dir.resolve("nginx.conf"), "events {}\nhttp {\n  http2_max_concurrent_streams 64;\n"
                + "  server {\n    listen 80;\n    listen [::]:80;\n    server_name example.com www.example.com;\n"
                + "    return 301 https://$host$request_uri;\n  }\n"
                + "  server {\n    listen 443 ssl http2;\n    listen [::]:443 ssl http2;\n"
                + "    server_name example.com www.example.com;\n"
                + "    ssl_certificate " + cert.cert() + ";\n    ssl_certificate_key " + cert.key() + ";\n"
                + "    root " + www + ";\n    location / { try_files $uri $uri/ =404; }\n  }\n}\n");
        NginxImport.Result r = NginxImport.translate(dir.resolve("nginx.conf"));

        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).extracting(Object::toString).containsExactly("*:443 tls h2", "*:80");
        assertThat(c.http2().maxConcurrentStreams()).isEqualTo(64);
        assertThat(c.hosts()).singleElement().satisfies(h -> {
            assertThat(h.names()).containsExactly("example.com", "www.example.com");
            assertThat(h.listen()).extracting(Object::toString).containsExactly("*:80");
            assertThat(h.isDefault()).as("nginx's default on port 80").isTrue();
            assertThat(((TargetConfig.Return) h.locations().get(0).target()).status()).isEqualTo(301);
        });
        assertThat(((TargetConfig.Static) location(c, "/").target()).dir()).isEqualTo(www);
        assertGolden(r, "certbot.expected.conf");
    }
}
