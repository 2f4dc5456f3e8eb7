package io.portico.nginx;

import static io.portico.nginx.Imports.load;
import static io.portico.nginx.Imports.translate;
import static io.portico.nginx.Imports.unmapped;
import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.HostConfig;
import io.portico.config.LocationConfig;
import io.portico.config.LocationConfig.Match;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import io.portico.config.TargetConfig;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import io.portico.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each nginx directive's translation, loaded by ConfigLoader and checked for what the nginx file meant. */
class NginxImportTest {
    @TempDir
    Path dir;
    Path www;
    Path themes;

    @BeforeEach
    void dirs() throws Exception {
        www = Files.createDirectories(dir.resolve("www"));
        themes = Files.createDirectories(dir.resolve("themes"));
    }

    private String server(String body) {
        return "http {\n  upstream app { server 127.0.0.1:5000; }\n  server {\n    listen 127.0.0.1:8080;\n"
                + "    root " + www + ";\n" + body + "\n  }\n}\n";
    }

    private static LocationConfig location(PorticoConfig c, Match.Kind kind, String value) {
        return c.locations().stream().filter(l -> l.match().kind() == kind && l.match().value().equals(value))
                .findFirst().orElseThrow(() -> new AssertionError("no location " + value + " in " + c.locations()));
    }

    @Test
    void rateLimitZoneAndLimitReqBecomeAZoneWithNginxsStatus() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  limit_req_zone $binary_remote_addr zone=allips:10m rate=50r/s;\n"
                + "  limit_req_zone $binary_remote_addr$uri zone=login:1m rate=5r/m;\n"
                + "  limit_req_status 429;\n"
                + "  server {\n    listen 127.0.0.1:8080;\n    root " + www + ";\n"
                + "    limit_req zone=allips burst=20 nodelay;\n"
                + "    location /login { limit_req zone=login burst=2 delay=1; limit_req_dry_run on; }\n"
                + "    location /x/ { }\n  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        RateLimitZoneConfig all = c.rateLimits().get("allips");
        assertThat(all.requests()).isEqualTo(50);
        assertThat(all.per()).isEqualTo(Duration.ofSeconds(1));
        assertThat(all.burst()).isEqualTo(20);
        assertThat(all.nodelay()).isTrue();
        assertThat(all.status()).isEqualTo(429);
        assertThat(all.key()).isEqualTo("client-ip");
        assertThat(all.maxClients()).isEqualTo(10L * 1024 * 1024 / 64);
        RateLimitZoneConfig login = c.rateLimits().get("login");
        assertThat(login.key()).isEqualTo("client-ip+path");
        assertThat(login.requests()).isEqualTo(5);
        assertThat(login.per()).isEqualTo(Duration.ofMinutes(1));
        assertThat(login.burst()).isEqualTo(2);
        assertThat(login.delay()).isEqualTo(1);
        assertThat(login.dryRun()).isTrue();
        // limit_req at the location replaces the server's (nginx does not merge the two levels).
        assertThat(location(c, Match.Kind.PREFIX, "/login").rateLimits()).containsExactly("login");
        assertThat(location(c, Match.Kind.PREFIX, "/x/").rateLimits()).containsExactly("allips");
        assertThat(location(c, Match.Kind.PREFIX, "/").rateLimits()).containsExactly("allips");
        assertThat(r.hocon()).contains("# nginx.conf:8: limit_req zone=allips burst=20 nodelay;",
                "rate = \"5r/m\"  # exact in Portico; nginx rounds it to 83/1000 r/s (one request per 12.0 s)");
    }

    @Test
    void withoutLimitReqStatusTheZoneKeepsNginxs503AndSaysSo() throws Exception {
        NginxImport.Result r = translate(dir, server("limit_req_zone_placeholder;").replace(
                "limit_req_zone_placeholder;", "location / { limit_req zone=z; }").replace("http {\n",
                "http {\n  limit_req_zone $remote_addr zone=z:1m rate=1r/s;\n"));
        PorticoConfig c = load(r, dir);
        assertThat(c.rateLimits().get("z").status()).isEqualTo(503);
        assertThat(r.hocon()).contains("status = 503  # nginx's limit_req_status default; Portico's own is 429");
    }

    @Test
    void oneZoneUsedWithTwoBurstsIsReported() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  limit_req_zone $remote_addr zone=z:1m rate=1r/s;\n"
                + "  server {\n    listen 127.0.0.1:8080;\n    root " + www + ";\n"
                + "    location /a/ { limit_req zone=z burst=5; }\n    location /b/ { limit_req zone=z burst=9; }\n"
                + "  }\n}\n");
        assertThat(unmapped(r)).containsExactly("nginx.conf:7 limit_req");
        assertThat(load(r, dir).rateLimits().get("z").burst()).isEqualTo(5);
    }

    @Test
    void aliasRootIndexAutoindexExpires() throws Exception {
        NginxImport.Result r = translate(dir, server(
                "    index index.html index.htm;\n"
                + "    location /themes/ { alias " + themes + "/; expires 30d; autoindex on; }\n"
                + "    location /max/ { expires max; }\n"));
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        TargetConfig.Static t = (TargetConfig.Static) location(c, Match.Kind.PREFIX, "/themes/").target();
        assertThat(t.alias()).isTrue();
        assertThat(t.dir()).isEqualTo(themes);
        assertThat(t.expires()).contains(Duration.ofDays(30));
        assertThat(t.autoindex()).isTrue();
        assertThat(t.index()).containsExactly("index.html", "index.htm");
        assertThat(t.precompressed()).as("nginx serves .gz only with gzip_static").isFalse();
        TargetConfig.Static root = (TargetConfig.Static) location(c, Match.Kind.PREFIX, "/").target();
        assertThat(root.alias()).isFalse();
        assertThat(root.dir()).isEqualTo(www);
        assertThat(((TargetConfig.Static) location(c, Match.Kind.PREFIX, "/max/").target()).expires())
                .contains(Duration.ofDays(3650));
        assertThat(r.hocon()).contains("# nginx.conf:7: location /themes/ { alias " + themes + "/; expires 30d;");
    }

    @Test
    void returnWithVariablesIsARedirect() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  server {\n    listen 127.0.0.1:8080;\n"
                + "    return 301 https://$host$request_uri;\n  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        TargetConfig.Return ret = (TargetConfig.Return) location(c, Match.Kind.PREFIX, "/").target();
        assertThat(ret.status()).isEqualTo(301);
        assertThat(ret.location().orElseThrow().text()).isEqualTo("https://$host$request_uri");
    }

    @Test
    void returnBodiesStatusesAndUnknownVariables() throws Exception {
        NginxImport.Result r = translate(dir, server(
                "    location = /health { return 200 \"ok\\n\"; }\n"
                + "    location = /gone { return 410; }\n"
                + "    location = /old { return https://example.com$uri?$args; }\n"
                + "    location = /who { return 200 $hostname; }\n"
                + "    location = /drop { return 444; }\n"));
        assertThat(unmapped(r)).containsExactly("nginx.conf:9 return", "nginx.conf:10 return");
        assertThat(Imports.reasons(r)).contains("$hostname is not one Portico knows");
        PorticoConfig c = load(r, dir);
        TargetConfig.Return health = (TargetConfig.Return) location(c, Match.Kind.EXACT, "/health").target();
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.body().text()).isEqualTo("ok\n");
        assertThat(((TargetConfig.Return) location(c, Match.Kind.EXACT, "/gone").target()).status()).isEqualTo(410);
        TargetConfig.Return old = (TargetConfig.Return) location(c, Match.Kind.EXACT, "/old").target();
        assertThat(old.status()).isEqualTo(302);
        assertThat(old.location().orElseThrow().text()).isEqualTo("https://example.com$uri?$args");
    }

    @Test
    void regexLocationsCaseInsensitiveAndNested() throws Exception {
        NginxImport.Result r = translate(dir, server(
                "    location ~* \\.(png|jpg)$ { expires 7d; }\n"
                + "    location /api/ {\n      proxy_pass http://app;\n"
                + "      location ~ \\.php$ { return 403; }\n"
                + "      location /api/v2/ { proxy_pass http://app/v2/; }\n    }\n"));
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        List<LocationConfig> regexes = c.locations().stream()
                .filter(l -> l.match().kind() == Match.Kind.REGEX).toList();
        assertThat(regexes).hasSize(2);
        // The nested regex comes first (nginx tries it before the outer ones) and holds only under /api/.
        Pattern nested = Pattern.compile(regexes.get(0).match().value());
        assertThat(nested.matcher("/api/x.php").find()).isTrue();
        assertThat(nested.matcher("/other/x.php").find()).isFalse();
        assertThat(((TargetConfig.Return) regexes.get(0).target()).status()).isEqualTo(403);
        Pattern images = Pattern.compile(regexes.get(1).match().value());
        assertThat(images.matcher("/a/B.PNG").find()).isTrue();
        TargetConfig.Proxy v2 = (TargetConfig.Proxy) location(c, Match.Kind.PREFIX, "/api/v2/").target();
        assertThat(v2.upstream()).isEqualTo("app");
        assertThat(v2.uriPrefix()).contains("/v2/");
        TargetConfig.Proxy api = (TargetConfig.Proxy) location(c, Match.Kind.PREFIX, "/api/").target();
        assertThat(api.uriPrefix()).isEmpty();
    }

    @Test
    void caretTildeIsAPrefixAndReportedWhereARegexCouldWinInstead() throws Exception {
        NginxImport.Result r = translate(dir, server(
                "    location ^~ /static/ { alias " + themes + "/; }\n    location ~ \\.js$ { return 404; }\n"));
        assertThat(unmapped(r)).containsExactly("nginx.conf:6 location");
        assertThat(location(load(r, dir), Match.Kind.PREFIX, "/static/").target())
                .isInstanceOf(TargetConfig.Static.class);
        NginxImport.Result alone = translate(dir, server("    location ^~ /static/ { alias " + themes + "/; }\n"));
        assertThat(unmapped(alone)).isEmpty();
    }

    @Test
    void upstreamsWithEveryServerParameterAndBalance() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  upstream app {\n    least_conn;\n    server 127.0.0.1:5000 weight=3 max_fails=2 fail_timeout=30s;\n"
                + "    server 127.0.0.1:5001;\n    server 127.0.0.1:5002 backup;\n    keepalive 16;\n"
                + "    keepalive_timeout 30s;\n  }\n"
                + "  upstream sticky { ip_hash; server 127.0.0.1:6000; server 127.0.0.1:6001; }\n"
                + "  upstream byuri { hash $request_uri consistent; server 127.0.0.1:7000; server 127.0.0.1:7001; }\n"
                + "  server {\n    listen 127.0.0.1:8080;\n"
                + "    location / { proxy_pass http://app; }\n"
                + "    location /s/ { proxy_pass http://sticky; }\n"
                + "    location /h/ { proxy_pass http://byuri; }\n  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        UpstreamConfig app = c.upstreams().get("app");
        assertThat(app.balance()).isEqualTo(UpstreamConfig.Balance.LEAST_CONN);
        assertThat(app.keepalive()).isEqualTo(16);
        assertThat(app.keepaliveTimeout()).isEqualTo(Duration.ofSeconds(30));
        UpstreamServerConfig first = app.servers().get(0);
        assertThat(first.address()).hasToString("127.0.0.1:5000");
        assertThat(first.weight()).isEqualTo(3);
        assertThat(first.maxFails()).isEqualTo(2);
        assertThat(first.failTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(app.servers().get(2).backup()).isTrue();
        assertThat(c.upstreams().get("sticky").balance()).isEqualTo(UpstreamConfig.Balance.IP_HASH);
        assertThat(c.upstreams().get("byuri").balance()).isEqualTo(UpstreamConfig.Balance.HASH);
        assertThat(c.upstreams().get("byuri").hashKey()).isEqualTo("$request_uri");
    }

    @Test
    void proxyHeadersTimeoutsAndBuffering() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  upstream app { server 127.0.0.1:5000; }\n"
                + "  proxy_read_timeout 100s;\n"
                + "  server {\n    listen 127.0.0.1:8080;\n"
                + "    location / {\n      proxy_pass http://app;\n      proxy_http_version 1.1;\n"
                + "      proxy_set_header Connection \"\";\n      proxy_set_header Host $host;\n"
                + "      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;\n"
                + "      proxy_set_header X-Real-IP $remote_addr;\n"
                + "      proxy_set_header X-Original-URI $request_uri;\n"
                + "      add_header X-Served-By portico always;\n    }\n"
                + "    location /upload/ {\n      proxy_pass http://app;\n      proxy_read_timeout 5m;\n"
                + "      proxy_connect_timeout 2s;\n      proxy_request_buffering off;\n      proxy_buffering off;\n"
                + "      proxy_ignore_client_abort on;\n"
                + "      client_max_body_size 100m;\n    }\n"
                + "    location /direct/ { proxy_pass http://127.0.0.1:9000/; }\n  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        TargetConfig.Proxy root = (TargetConfig.Proxy) location(c, Match.Kind.PREFIX, "/").target();
        assertThat(root.hostFromUpstream()).isFalse();
        assertThat(root.forwardedHeaders()).extracting(Object::toString)
                .containsExactlyInAnyOrder("X_FORWARDED_FOR", "X_REAL_IP");
        assertThat(root.setRequestHeaders().get("X-Original-URI").text()).isEqualTo("$request_uri");
        assertThat(root.setResponseHeaders().get("X-Served-By").text()).isEqualTo("portico");
        assertThat(c.upstreams().get(root.upstream()).readTimeout()).isEqualTo(Duration.ofSeconds(100));
        LocationConfig upload = location(c, Match.Kind.PREFIX, "/upload/");
        TargetConfig.Proxy up = (TargetConfig.Proxy) upload.target();
        assertThat(up.requestBuffering()).isFalse();
        assertThat(up.responseBuffering()).isFalse();
        assertThat(up.ignoreClientAbort()).isTrue();
        assertThat(root.ignoreClientAbort()).as("nginx's default, off").isFalse();
        assertThat(upload.maxBodySize()).hasValue(100L << 20);
        // Portico's timeouts are per upstream: the location with other timeouts gets a copy of the pool.
        assertThat(up.upstream()).isEqualTo("app-2");
        assertThat(c.upstreams().get("app-2").readTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.upstreams().get("app-2").connectTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.upstreams().get("app-2").servers()).hasSize(1);
        TargetConfig.Proxy direct = (TargetConfig.Proxy) location(c, Match.Kind.PREFIX, "/direct/").target();
        assertThat(c.upstreams().get(direct.upstream()).servers().get(0).address()).hasToString("127.0.0.1:9000");
        assertThat(direct.hostFromUpstream()).as("nginx sends $proxy_host by default").isTrue();
        assertThat(direct.forwardedHeaders()).as("nginx sets none unless told").isEmpty();
        assertThat(direct.uriPrefix()).contains("/");
    }

    @Test
    void tryFilesWithStatusAndNamedUpstreamFallback() throws Exception {
        NginxImport.Result r = translate(dir, server(
                "    location / { try_files $uri $uri/ @app; }\n"
                + "    location @app { proxy_pass http://app; }\n"
                + "    location /docs/ { try_files $uri $uri/index.html =404; }\n"));
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(((TargetConfig.Static) location(c, Match.Kind.PREFIX, "/").target()).tryFiles())
                .containsExactly("$uri", "$uri/", "@app");
        assertThat(((TargetConfig.Static) location(c, Match.Kind.PREFIX, "/docs/").target()).tryFiles())
                .containsExactly("$uri", "$uri/index.html", "=404");
        assertThat(c.locations()).noneMatch(l -> l.match().value().startsWith("@"));
    }

    @Test
    void allowAndDenyInNginxsOrder() throws Exception {
        NginxImport.Result r = translate(dir, server(
                "    location /admin/ { allow 127.0.0.1; allow 10.0.0.0/8; deny all; }\n"
                + "    location /open/ { deny 192.168.1.0/24; allow all; }\n"
                + "    location /closed/ { deny all; }\n"
                + "    location /noop/ { allow 10.0.0.0/8; }\n"
                + "    location /order/ { allow 10.0.0.0/8; deny 10.1.0.0/16; deny all; }\n"));
        assertThat(unmapped(r)).containsExactly("nginx.conf:10 allow", "nginx.conf:10 deny", "nginx.conf:10 deny");
        PorticoConfig c = load(r, dir);
        LocationConfig admin = location(c, Match.Kind.PREFIX, "/admin/");
        assertThat(admin.allow()).extracting(Object::toString).containsExactly("127.0.0.1/32", "10.0.0.0/8");
        assertThat(admin.deny()).isEmpty();
        assertThat(location(c, Match.Kind.PREFIX, "/open/").deny()).extracting(Object::toString)
                .containsExactly("192.168.1.0/24");
        assertThat(location(c, Match.Kind.PREFIX, "/open/").allow()).isEmpty();
        assertThat(location(c, Match.Kind.PREFIX, "/closed/").deny()).extracting(Object::toString)
                .containsExactly("0.0.0.0/0", "::/0");
        assertThat(location(c, Match.Kind.PREFIX, "/noop/").restricted()).as("nginx serves everyone").isFalse();
    }

    @Test
    void limitConnZones() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  limit_conn_zone $binary_remote_addr zone=addr:10m;\n"
                + "  server {\n    listen 127.0.0.1:8080;\n    root " + www + ";\n    limit_conn addr 10;\n  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(c.limitConn().get("addr").max()).isEqualTo(10);
        assertThat(c.limitConn().get("addr").status()).isEqualTo(503);
        assertThat(location(c, Match.Kind.PREFIX, "/").limitConn()).containsExactly("addr");
    }

    @Test
    void globalLimitsTrustedProxiesAccessLogAndWorkers() throws Exception {
        NginxImport.Result r = translate(dir, "worker_processes 4;\nevents { worker_connections 1024; }\n"
                + "http {\n  keepalive_timeout 65;\n  client_header_timeout 20s;\n  client_body_timeout 30;\n"
                + "  send_timeout 1m;\n  keepalive_requests 500;\n  client_max_body_size 8m;\n"
                + "  set_real_ip_from 10.0.0.0/8;\n  set_real_ip_from 192.168.0.1;\n"
                + "  real_ip_header X-Forwarded-For;\n  real_ip_recursive on;\n"
                + "  access_log " + dir.resolve("access.log") + ";\n  sendfile on;\n  tcp_nopush on;\n"
                + "  server {\n    listen 127.0.0.1:8080;\n    root " + www + ";\n"
                + "    location /big/ { client_max_body_size 1g; }\n"
                + "    location /slow/ { send_timeout 5m; }\n  }\n}\n");
        assertThat(unmapped(r)).as("send_timeout is global in Portico").containsExactly("nginx.conf:21 send_timeout");
        PorticoConfig c = load(r, dir);
        assertThat(c.workers()).isEqualTo(4);
        assertThat(c.limits().keepaliveTimeout()).isEqualTo(Duration.ofSeconds(65));
        assertThat(c.limits().clientHeaderTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.limits().clientBodyTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.limits().sendTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(c.limits().keepaliveRequests()).isEqualTo(500);
        assertThat(c.limits().maxBodySize()).isEqualTo(8L << 20);
        assertThat(location(c, Match.Kind.PREFIX, "/big/").maxBodySize()).hasValue(1L << 30);
        assertThat(location(c, Match.Kind.PREFIX, "/").maxBodySize()).isEmpty();
        assertThat(c.trustedProxies()).extracting(Object::toString).containsExactly("10.0.0.0/8", "192.168.0.1/32");
        assertThat(c.accessLog().file()).contains(dir.resolve("access.log"));
        assertThat(r.report().notes()).extracting(Report.Item::directive)
                .contains("sendfile on;", "tcp_nopush on;", "events { worker_connections 1024; }");
    }

    @Test
    void serverNamesBecomeVirtualHostsAndTheDefaultServerTheTopLevel() throws Exception {
        Path other = Files.createDirectories(dir.resolve("other"));
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8080 default_server; server_name _; return 404; }\n"
                + "  server { listen 127.0.0.1:8080; server_name example.com www.example.com; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8080; server_name .example.org; root " + other + "; }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(((TargetConfig.Return) c.locations().get(0).target()).status()).isEqualTo(404);
        assertThat(c.hosts()).extracting(HostConfig::names).containsExactly(
                List.of("example.com", "www.example.com"), List.of("example.org", "*.example.org"));
        assertThat(((TargetConfig.Static) c.hosts().get(1).locations().get(0).target()).dir()).isEqualTo(other);
    }

    @Test
    void serversOnDifferentPortsBecomeHostsOnTheirOwnListeners() throws Exception {
        Path other = Files.createDirectories(dir.resolve("other"));
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8080; server_name a.test; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8081; server_name b.test; root " + other + "; }\n"
                + "  server { listen 127.0.0.1:8081; server_name b.test; return 404; }\n}\n");
        // 8081's default is b.test, the first there: its host is the default on 8081, a.test the top level.
        assertThat(unmapped(r)).isEmpty();
        assertThat(r.report().notes()).extracting(Report.Item::reason).anyMatch(n -> n.startsWith(
                "the name b.test on [127.0.0.1:8081]: nginx ignores it (conflicting server name)"));
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).extracting(Object::toString).containsExactly("127.0.0.1:8080", "127.0.0.1:8081");
        assertThat(((TargetConfig.Static) location(c, Match.Kind.PREFIX, "/").target()).dir()).isEqualTo(www);
        assertThat(c.hosts()).singleElement().satisfies(h -> {
            assertThat(h.names()).containsExactly("b.test");
            assertThat(h.listen()).extracting(Object::toString).containsExactly("127.0.0.1:8081");
            assertThat(h.isDefault()).isTrue();
            assertThat(((TargetConfig.Static) h.locations().get(0).target()).dir()).isEqualTo(other);
        });
        assertThat(c.hosts().get(0).on(c.listen().get(0).address())).as("b.test is not served on 8080").isFalse();
    }

    @Test
    void aDefaultServerOfOneAddressOnlyIsTheDefaultHostThere() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8080 default_server; server_name a.test; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8081 default_server; server_name b.test; return 403; }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        assertThat(r.hocon()).contains("{ names = [\"b.test\"], listen = [\"127.0.0.1:8081\"], default = true,");
        PorticoConfig c = load(r, dir);
        assertThat(c.hosts()).singleElement().satisfies(h -> {
            assertThat(h.listen()).extracting(Object::toString).containsExactly("127.0.0.1:8081");
            assertThat(h.isDefault()).isTrue();
        });
    }

    /**
     * A server that is nginx's default of one of its addresses only: a default host there and a plain host with
     * the same names on the other; the top-level server's names are a host where the default is another's.
     */
    @Test
    void aServerThatIsTheDefaultOfSomeOfItsAddressesIsTwoHosts() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8081; server_name b.test; return 403; }\n"
                + "  server { listen 127.0.0.1:8080; listen 127.0.0.1:8081; listen 127.0.0.1:8082; server_name"
                + " a.test; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8082; listen 127.0.0.1:8081; server_name c.test; return 404; }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(location(c, Match.Kind.PREFIX, "/").target()).as("a.test, the default of 8080 and 8082")
                .isInstanceOf(TargetConfig.Static.class);
        assertThat(c.hosts()).extracting(h -> h.names() + " " + h.listen() + (h.isDefault() ? " default" : ""))
                .containsExactly("[b.test] [127.0.0.1:8081] default", "[a.test] [127.0.0.1:8081]",
                        "[c.test] [127.0.0.1:8082, 127.0.0.1:8081]");
    }

    /** IPv4 and IPv6 of one port with different nginx defaults stay two listeners (one `*:P` could not say it). */
    @Test
    void wildcardAddressesWithDifferentDefaultsAreNotMerged() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 8080; listen [::]:8080; server_name a.test; root " + www + "; }\n"
                + "  server { listen 8080; listen [::]:8080 default_server; server_name b.test; return 403; }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).extracting(Object::toString).containsExactly("0.0.0.0:8080", "[::]:8080");
        assertThat(c.hosts()).extracting(h -> h.names() + " " + h.listen() + (h.isDefault() ? " default" : ""))
                .containsExactly("[a.test] [0.0.0.0:8080] default", "[a.test] [[::]:8080]",
                        "[b.test] [0.0.0.0:8080]");
    }

    @Test
    void aDefaultServerWhoseNamesAreAllAnotherServersIsReported() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8080 default_server; server_name x.test; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8081; server_name a.test; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8081 default_server; server_name a.test; return 403; }\n}\n");
        assertThat(unmapped(r)).containsExactly("nginx.conf:4 server");
        assertThat(Imports.reasons(r)).contains("default_server on [127.0.0.1:8081], with no name of its own (other"
                + " servers have them there): a Portico host needs one");
        PorticoConfig c = load(r, dir);
        assertThat(c.hosts()).extracting(HostConfig::isDefault).containsExactly(false);
    }

    @Test
    void oneServerThatIsTheDefaultOfEveryAddressIsTheTopLevelWithoutAReport() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8080; listen 127.0.0.1:8081; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8081; server_name b.test; return 403; }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        assertThat(r.report().notes()).extracting(Report.Item::reason).noneMatch(n -> n.contains("default"));
        PorticoConfig c = load(r, dir);
        assertThat(location(c, Match.Kind.PREFIX, "/").target()).isInstanceOf(TargetConfig.Static.class);
        assertThat(c.hosts().get(0).listen()).extracting(Object::toString).containsExactly("127.0.0.1:8081");
    }

    @Test
    void plainListenWithHttp2TakesH2cAndHttp2SettingsBecomeTheHttp2Section() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  http2_max_concurrent_streams 64;\n"
                + "  http2_body_preread_size 128k;\n  http2_max_header_size 32k;\n  http2_chunk_size 16k;\n"
                + "  server {\n    listen 127.0.0.1:8080 http2;\n    listen 127.0.0.1:8081;\n    root " + www + ";\n"
                + "  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).extracting(Object::toString).containsExactly("127.0.0.1:8080 h2", "127.0.0.1:8081");
        assertThat(c.http2().maxConcurrentStreams()).isEqualTo(64);
        assertThat(c.http2().initialWindowSize()).isEqualTo(128 * 1024);
        assertThat(c.http2().maxHeaderListSize()).isEqualTo(32 * 1024);
        assertThat(r.hocon()).contains("{ address = \"127.0.0.1:8080\", http2 = on }  # nginx.conf:7: listen");
    }

    @Test
    void listenProxyProtocolTrustsSetRealIpFromAndRealIpHeaderProxyProtocolIsMapped() throws Exception {
        Path certs = Files.createDirectories(dir.resolve("certs"));
        TestCertificates.Issued a = TestCertificates.issue(certs, "a", List.of("a.test"));
        NginxImport.Result r = translate(dir, "http {\n  set_real_ip_from 10.0.0.0/8;\n  set_real_ip_from 10.1.2.3;\n"
                + "  real_ip_header proxy_protocol;\n"
                + "  server {\n    listen 127.0.0.1:8080 proxy_protocol;\n"
                + "    listen 127.0.0.1:8443 ssl proxy_protocol;\n    ssl_certificate " + a.cert() + ";\n"
                + "    ssl_certificate_key " + a.key() + ";\n    root " + www + ";\n  }\n}\n");
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).hasSize(2).allSatisfy(l -> assertThat(l.proxyProtocol().orElseThrow().trusted())
                .extracting(Object::toString).containsExactly("10.0.0.0/8", "10.1.2.3/32"));
        assertThat(c.listen().get(1).secure()).isTrue();
        assertThat(c.trustedProxies()).as("with real_ip_header proxy_protocol nginx reads no X-Forwarded-For")
                .isEmpty();
    }

    @Test
    void listenProxyProtocolWithoutSetRealIpFromTrustsEveryoneAndSaysSo() throws Exception {
        NginxImport.Result r = translate(dir, server("    listen 127.0.0.1:8081 proxy_protocol;"));
        assertThat(unmapped(r)).isEmpty();
        PorticoConfig c = load(r, dir);
        assertThat(c.listen().get(0).proxyProtocol()).isEmpty();
        assertThat(c.listen().get(1).proxyProtocol().orElseThrow().trusted()).extracting(Object::toString)
                .containsExactly("0.0.0.0/0", "::/0");
        assertThat(r.report().notes()).extracting(Report.Item::reason).anyMatch(n -> n.startsWith(
                "nginx takes a PROXY header from any peer, and so does this listener"));
    }

    @Test
    void http2DirectiveOfNginx125IsTheTlsListenersAndDifferingServersThereAreReported() throws Exception {
        Path certs = Files.createDirectories(dir.resolve("certs"));
        TestCertificates.Issued a = TestCertificates.issue(certs, "a", List.of("a.test"));
        TestCertificates.Issued b = TestCertificates.issue(certs, "b", List.of("b.test"));
        NginxImport.Result r = translate(dir, "http {\n"
                + "  server { listen 127.0.0.1:8443 ssl; http2 on; server_name a.test; ssl_certificate " + a.cert()
                + "; ssl_certificate_key " + a.key() + "; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8444 ssl; server_name a.test; ssl_certificate " + a.cert()
                + "; ssl_certificate_key " + a.key() + "; root " + www + "; }\n"
                + "  server { listen 127.0.0.1:8444 ssl; http2 on; server_name b.test; ssl_certificate " + b.cert()
                + "; ssl_certificate_key " + b.key() + "; root " + www + "; }\n}\n");
        // On 8444 nginx chooses by SNI: b.test speaks HTTP/2, a.test not; Portico's listener follows its default
        // (line 3, the default host there).
        assertThat(unmapped(r)).containsExactly("nginx.conf:4 http2");
        assertThat(Imports.reasons(r)).contains("HTTP/2 on for this server only: Portico's http2 is the"
                + " listener's (127.0.0.1:8444 speaks HTTP/1.1 only for every host, as the server at nginx.conf:3)");
        PorticoConfig c = load(r, dir);
        assertThat(c.listen()).extracting(Object::toString)
                .containsExactly("127.0.0.1:8443 tls h2", "127.0.0.1:8444 tls");
        assertThat(r.hocon()).contains("http2 = on  # nginx.conf:2: http2 on;",
                "http2 = off  # no http2 in nginx on 127.0.0.1:8444: nginx serves HTTP/1.1 only here");
    }

    @Test
    void listenFormsBecomePorticoAddresses() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  server {\n    listen 8080;\n    listen [::]:8080;\n"
                + "    listen 127.0.0.1;\n    listen localhost:9090 reuseport backlog=1024;\n"
                + "    listen www.example.com:80;\n    listen unix:/run/nginx.sock;\n    root " + www + ";\n  }\n}\n");
        assertThat(unmapped(r)).containsExactly("nginx.conf:7 listen", "nginx.conf:8 listen");
        assertThat(load(r, dir).listen()).extracting(Object::toString)
                .containsExactly("*:8080", "127.0.0.1:80", "127.0.0.1:9090");
    }

    @Test
    void whatPorticoLacksIsReportedWithTheIssueThatBringsIt() throws Exception {
        NginxImport.Result r = translate(dir, "http {\n  gzip on;\n  gzip_types text/css;\n"
                + "  proxy_cache_path /tmp/c keys_zone=c:10m;\n"
                + "  server {\n    listen 127.0.0.1:8080 http2;\n    listen 127.0.0.1:8443 quic;\n"
                + "    root " + www + ";\n"
                + "    location /py/ { include uwsgi_params; uwsgi_pass 127.0.0.1:5000; uwsgi_param X y; }\n"
                + "    location ~ \\.php$ { fastcgi_pass unix:/run/php.sock; }\n"
                + "    location /c/ { proxy_pass http://127.0.0.1:5001; proxy_cache c; }\n"
                + "    location /r/ { rewrite ^ /x; frobnicate on; }\n  }\n}\n");
        String reasons = Imports.reasons(r);
        assertThat(unmapped(r)).containsExactlyInAnyOrder(
                "nginx.conf:2 gzip", "nginx.conf:3 gzip_types", "nginx.conf:4 proxy_cache_path",
                "nginx.conf:7 listen", "nginx.conf:11 proxy_cache", "nginx.conf:12 rewrite",
                "nginx.conf:12 frobnicate");
        assertThat(reasons).contains("gzip on;  compression is not supported yet (issue 27)",
                "caching is not supported yet (issue 27)", "quic: HTTP/3 is not supported",
                "frobnicate on;  portico import does not know this directive");
        PorticoConfig c = load(r, dir);
        // uwsgi_pass and fastcgi_pass became upstreams of their protocol (issue 26), uwsgi_param the params
        TargetConfig.Proxy py = (TargetConfig.Proxy) location(c, Match.Kind.PREFIX, "/py/").target();
        assertThat(c.upstreams().get(py.upstream()).servers().get(0).address()).hasToString("127.0.0.1:5000");
        assertThat(c.upstreams().get(py.upstream()).protocol()).hasToString("UWSGI");
        assertThat(r.hocon()).contains("params = { X = \"y\" }");
        TargetConfig.Proxy php = (TargetConfig.Proxy) location(c, Match.Kind.REGEX, "\\.php$").target();
        assertThat(c.upstreams().get(php.upstream()).protocol()).hasToString("FASTCGI");
        assertThat(r.hocon()).contains("# Not mapped (7)", "#   nginx.conf:12: frobnicate on;");
    }

    @Test
    void headersAndExpiresWherePorticoCannotSetThemAreReportedOnce() throws Exception {
        NginxImport.Result r = translate(dir, server("    add_header X-Frame-Options DENY;\n    expires 1h;\n"
                + "    location /a/ { }\n    location /b/ { }\n    location = /r { return 204; }\n"
                + "    location /p/ { proxy_pass http://app; }\n"));
        // add_header on static and return locations, expires on the proxied one; each line once.
        assertThat(unmapped(r)).containsExactly("nginx.conf:6 add_header", "nginx.conf:7 expires");
        PorticoConfig c = load(r, dir);
        TargetConfig.Proxy p = (TargetConfig.Proxy) location(c, Match.Kind.PREFIX, "/p/").target();
        assertThat(p.setResponseHeaders().get("X-Frame-Options").text()).isEqualTo("DENY");
    }

    @Test
    void everyGeneratedLocationNamesItsNginxLines() throws Exception {
        NginxImport.Result r = translate(dir, server("    location /a/ { }\n    location = /b { return 204; }\n"));
        assertThat(r.hocon()).contains("# nginx.conf:6: location /a/ { }", "# nginx.conf:7: location = /b { return 204; }",
                "# nginx.conf:3: the server's own settings (requests no location matches)",
                "root = \"" + www + "\"  # nginx.conf:5: root " + www + ";",
                "# client-header-timeout: not set in nginx, whose default is 60s; Portico's 10s is kept");
    }
}
