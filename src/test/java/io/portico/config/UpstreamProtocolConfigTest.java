package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Protocols of upstream servers, inline addresses in {@code proxy}, and a location's uwsgi {@code params}. */
class UpstreamProtocolConfigTest {
    @TempDir
    Path prefix;

    @Test
    void aUwsgiSchemeMakesAUwsgiUpstreamOverTcpOrAUnixSocket() throws Exception {
        PorticoConfig c = parse("""
                upstreams { py { servers = ["uwsgi://127.0.0.1:5000", { address = "uwsgi://unix:/run/app.sock" }] } }
                locations = [{ path = "/", proxy = "uwsgi://py", params = { UWSGI_SCRIPT = "app:app", X = "$host" } }]
                """);
        UpstreamConfig py = c.upstreams().get("py");
        assertThat(py.protocol()).isEqualTo(UpstreamProtocol.UWSGI);
        assertThat(py.servers().get(0).address().toString()).isEqualTo("127.0.0.1:5000");
        assertThat(py.servers().get(1).address()).isEqualTo(new UpstreamAddress.Unix(Path.of("/run/app.sock")));
        TargetConfig.Proxy target = (TargetConfig.Proxy) c.locations().get(0).target();
        assertThat(target.upstream()).isEqualTo("py");
        assertThat(target.params()).containsOnlyKeys("UWSGI_SCRIPT", "X");
        assertThat(target.params().get("X").isLiteral()).isFalse();
    }

    @Test
    void plainAndHttpAddressesStayHttp() throws Exception {
        PorticoConfig c = parse("""
                upstreams { app { servers = ["127.0.0.1:5000", "http://127.0.0.1:5001"] } }
                locations = [{ path = "/", proxy = app }]
                """);
        assertThat(c.upstreams().get("app").protocol()).isEqualTo(UpstreamProtocol.HTTP);
        assertThat(c.upstreams().get("app").servers().get(1).address().toString()).isEqualTo("127.0.0.1:5001");
    }

    @Test
    void inlineAddressesMakeImplicitUpstreamsWithTheDefaults() throws Exception {
        PorticoConfig c = parse("""
                defaults.upstream.read-timeout = 7s
                locations = [
                  { path = "/a/", proxy = "http://127.0.0.1:5000" },
                  { path = "/b/", proxy = "http://127.0.0.1:5000/v2/" },
                  { path = "/c/", proxy = "uwsgi://unix:/run/app.sock" },
                  { path = "/d/", proxy = "http://unix:/run/web.sock" } ]
                """);
        Map<String, UpstreamConfig> u = c.upstreams();
        assertThat(u).containsOnlyKeys("127.0.0.1:5000", "uwsgi://unix:/run/app.sock", "unix:/run/web.sock");
        UpstreamConfig http = u.get("127.0.0.1:5000");
        assertThat(http.protocol()).isEqualTo(UpstreamProtocol.HTTP);
        assertThat(http.readTimeout()).hasSeconds(7);
        assertThat(http.keepalive()).isEqualTo(32);
        assertThat(http.servers()).hasSize(1);
        assertThat(u.get("uwsgi://unix:/run/app.sock").protocol()).isEqualTo(UpstreamProtocol.UWSGI);
        assertThat(u.get("unix:/run/web.sock").servers().get(0).address())
                .isEqualTo(new UpstreamAddress.Unix(Path.of("/run/web.sock")));
        TargetConfig.Proxy a = (TargetConfig.Proxy) c.locations().get(0).target();
        TargetConfig.Proxy b = (TargetConfig.Proxy) c.locations().get(1).target();
        assertThat(a.upstream()).isEqualTo("127.0.0.1:5000");
        assertThat(a.uriPrefix()).isEmpty();
        assertThat(b.upstream()).isEqualTo("127.0.0.1:5000");
        assertThat(b.uriPrefix()).contains("/v2/");
        assertThat(((TargetConfig.Proxy) c.locations().get(2).target()).upstream())
                .isEqualTo("uwsgi://unix:/run/app.sock");
    }

    @Test
    void theDumpKeepsProtocolsInlineUpstreamsAndParamsAndReadsBackTheSame() throws Exception {
        PorticoConfig c = parse("""
                upstreams { py { servers = ["uwsgi://127.0.0.1:5000"] } }
                locations = [
                  { path = "/a/", proxy = py, params = { UWSGI_SCRIPT = "app:app", X = "$host" } },
                  { path = "/b/", proxy = "http://127.0.0.1:5001/v2/" },
                  { path = "/c/", proxy = "uwsgi://unix:/run/app.sock" },
                  { path = "/d/", proxy = "fastcgi://127.0.0.1:9000", fastcgi-root = "/srv/www",
                    fastcgi-index = "main.php" } ]
                """);
        String dump = ConfigDump.render(c);
        assertThat(dump).contains("address = \"uwsgi://127.0.0.1:5000\"", "\"uwsgi://unix:/run/app.sock\" {",
                "address = \"uwsgi://unix:/run/app.sock\"", "proxy = \"uwsgi://unix:/run/app.sock\"",
                "params = { \"UWSGI_SCRIPT\" = \"app:app\", \"X\" = \"$host\" }",
                "address = \"fastcgi://127.0.0.1:9000\"", "fastcgi-root = \"/srv/www\"", "fastcgi-index = \"main.php\"");
        Path again = prefix.resolve("conf").resolve("again.conf");
        Files.createDirectories(again.getParent());
        Files.writeString(again, dump);
        PorticoConfig back = ConfigLoader.load(again, java.util.Optional.empty());
        assertThat(ConfigDump.render(back)).isEqualTo(dump);
        assertThat(back.upstreams().get("uwsgi://unix:/run/app.sock").protocol()).isEqualTo(UpstreamProtocol.UWSGI);
    }

    @Test
    void defaultParamsServeTheUwsgiLocationsAndAreNoProblemOnHttpOnes() throws Exception {
        PorticoConfig c = parse("""
                defaults.location.params { APP_ENV = "prod" }
                upstreams { py { servers = ["uwsgi://127.0.0.1:5000"] }, web { servers = ["127.0.0.1:5001"] } }
                locations = [ { path = "/py/", proxy = py }, { path = "/", proxy = web } ]
                """);
        assertThat(((TargetConfig.Proxy) c.locations().get(0).target()).params()).containsOnlyKeys("APP_ENV");
    }

    @Test
    void fastcgiPoolsKeepNoConnectionUnlessTheirOwnBlockSetsKeepalive() throws Exception {
        PorticoConfig c = parse("""
                defaults.upstream.keepalive = 10
                upstreams {
                  php { servers = ["fastcgi://127.0.0.1:9000"] }
                  kept { servers = ["fastcgi://127.0.0.1:9001"], keepalive = 2, max-connections = 2 }
                  web { servers = ["127.0.0.1:5000"] }
                }
                locations = [ { path = "/a/", proxy = php }, { path = "/b/", proxy = kept }, { path = "/c/", proxy = web },
                  { path = "/d/", proxy = "fastcgi://127.0.0.1:9002" } ]
                """);
        assertThat(c.upstreams().get("php").keepalive()).isZero();
        assertThat(c.upstreams().get("kept").keepalive()).isEqualTo(2);
        assertThat(c.upstreams().get("web").keepalive()).isEqualTo(10);
        assertThat(c.upstreams().get("fastcgi://127.0.0.1:9002").keepalive()).isZero();
    }

    @Test
    void aFastcgiPoolThatKeepsConnectionsNeedsMaxConnections() {
        InvalidConfigException e = org.assertj.core.api.Assertions.catchThrowableOfType(InvalidConfigException.class,
                () -> parse("upstreams { php { servers = [\"fastcgi://127.0.0.1:9000\"], keepalive = 2 } }\n"
                        + "locations = [ { path = \"/\", proxy = php } ]"));
        assertThat(e.problems()).map(ConfigProblem::toString).containsExactly("x.conf:2: portico.upstreams.php.keepalive:"
                + " 2 on a FastCGI upstream without max-connections (expected: max-connections = the app's"
                + " pm.max_children, or no keepalive)");
    }

    @Test
    void aNameThatIsNotAnAddressStillNamesNoUpstream() {
        InvalidConfigException e = org.assertj.core.api.Assertions.catchThrowableOfType(
                InvalidConfigException.class, () -> parse("locations = [{ path = \"/\", proxy = \"http://app\" }]"));
        assertThat(e.problems()).map(ConfigProblem::toString).containsExactly("x.conf:2: portico.locations.0.proxy:"
                + " 'app' names no upstream (expected: one of [], or an address such as \"http://127.0.0.1:5000\""
                + " or \"uwsgi://unix:/run/app.sock\")");
    }

    private PorticoConfig parse(String body) throws Exception {
        Files.createDirectories(prefix.resolve("static"));
        return ConfigLoader.parse("portico {\n" + body + "\n}", "x.conf", prefix);
    }
}
