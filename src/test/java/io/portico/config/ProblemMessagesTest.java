package io.portico.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Messages for what Portico does not do yet: say what is missing and what to write instead. */
class ProblemMessagesTest {
    @TempDir
    Path prefix;

    @Test
    void aUwsgiProxyToAnHttpUpstreamSaysWhatTheUpstreamSpeaks() {
        assertThat(problems("""
                upstreams { app { servers = ["127.0.0.1:5000"] } }
                locations = [{ path = "/", proxy = "uwsgi://app", via = true }]""")).containsExactly(
                "x.conf:3: portico.locations.0.proxy: 'uwsgi://app': upstream app speaks http"
                        + " (expected: http://app or app)");
    }

    @Test
    void fastcgiOptionsOnAnotherProtocolAreRefused() {
        assertThat(problems("""
                upstreams { app { servers = ["uwsgi://127.0.0.1:5000"] } }
                locations = [{ path = "/", proxy = app, fastcgi-root = "/srv/www" }]""")).containsExactly(
                "x.conf:3: portico.locations.0.fastcgi-root: upstream app speaks uwsgi"
                        + " (expected: fastcgi-root on a fastcgi upstream's location)");
    }

    @Test
    void anUpstreamMixingProtocolsIsRefused() {
        assertThat(problems("""
                upstreams { app { servers = ["uwsgi://127.0.0.1:5000", "127.0.0.1:5001"] } }
                locations = [{ path = "/", proxy = app }]""")).containsExactly(
                "x.conf:2: portico.upstreams.app.servers: mixes protocols [http, uwsgi] (expected: one protocol"
                        + " per upstream, e.g. every server uwsgi://...)");
    }

    @Test
    void paramsOnAnHttpUpstreamAreRefused() {
        assertThat(problems("""
                upstreams { app { servers = ["127.0.0.1:5000"] } }
                locations = [{ path = "/", proxy = app, params = { UWSGI_SCRIPT = "app:app" } }]"""))
                .containsExactly("x.conf:3: portico.locations.0.params: upstream app speaks http, which has no"
                        + " request variables (expected: params on a uwsgi or fastcgi upstream's"
                        + " location; set-request-headers for http)");
    }

    @Test
    void anInlineAddressThatDoesNotResolveIsAProblemOfProxy() {
        assertThat(problems("locations = [{ path = \"/\", proxy = \"uwsgi://no-such-host.invalid:5000\" }]"))
                .containsExactly("x.conf:2: portico.locations.0.proxy: 'uwsgi://no-such-host.invalid:5000'"
                        + " does not resolve"
                        + " (expected: a resolvable host name or an IP address)");
    }

    @Test
    void anotherSchemeNamesTheScheme() {
        assertThat(problems("""
                upstreams { app { servers = ["127.0.0.1:5000"] } }
                locations = [{ path = "/", proxy = "grpc://app" }]""")).containsExactly(
                "x.conf:3: portico.locations.0.proxy: 'grpc://app': 'grpc://' is not a protocol Portico speaks to"
                        + " upstreams (expected: proxy = NAME, \"http://NAME/prefix/\" or \"uwsgi://NAME\")");
    }

    @Test
    void anNginxSslListenerSaysHowToWriteATlsListener() {
        assertThat(problems("listen = [\"0.0.0.0:443 ssl\"]")).containsExactly(
                "x.conf:2: portico.listen: '0.0.0.0:443 ssl': TLS is set as an object (expected: { address ="
                        + " \"0.0.0.0:443\", tls { certificates = [ { cert = \"/path/cert.pem\", key ="
                        + " \"/path/key.pem\" } ] } })");
    }

    @Test
    void otherListenParametersAreNamedAsParameters() {
        assertThat(problems("listen = [\"0.0.0.0:80 default_server\"]")).containsExactly(
                "x.conf:2: portico.listen: '0.0.0.0:80 default_server': listen takes no parameters"
                        + " (expected: \"host:port\", \"[::1]:port\" or \"*:port\")");
    }

    @Test
    void autoindexOnAProxyLocationIsNamedAsSuchEvenWhenItsProxyCannotBeRead() {
        assertThat(problems("""
                upstreams { app { servers = ["127.0.0.1:5000"] } }
                locations = [{ path = "/", proxy = "grpc://app", autoindex = true }]"""))
                .hasSize(2)
                .contains("x.conf:3: portico.locations.0.autoindex: has no effect on a proxy location");
        assertThat(problems("""
                upstreams { app { servers = ["127.0.0.1:5000"] } }
                locations = [{ path = "/", proxy = app, autoindex = true }]""")).containsExactly(
                "x.conf:3: portico.locations.0.autoindex: has no effect on a proxy location");
    }

    @Test
    void aBadMetricsFormatIsStillAMetricsLocation() {
        assertThat(problems("locations = [{ path = \"/m\", metrics = json, autoindex = true }]"))
                .containsExactlyInAnyOrder(
                "x.conf:2: portico.locations.0.autoindex: has no effect on a metrics location",
                "x.conf:2: portico.locations.0.metrics: 'json' (expected: prometheus)");
    }

    private List<String> problems(String body) {
        try {
            Files.createDirectories(prefix.resolve("static"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class,
                () -> ConfigLoader.parse("portico {\n" + body + "\n}", "x.conf", prefix));
        assertThat(e).as("must be refused: %s", body).isNotNull();
        return e.problems().stream().map(ConfigProblem::toString).toList();
    }
}
