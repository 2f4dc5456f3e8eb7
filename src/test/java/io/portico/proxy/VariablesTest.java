package io.portico.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** nginx variables in return and in header values, through a real server; unknown ones refused by check. */
class VariablesTest {

    private static Response exchange(PorticoServer server, String request) throws Exception {
        try (RawHttp c = new RawHttp(TestServers.port(server))) {
            c.send(request);
            return c.read();
        }
    }

    @Test
    void aRedirectToHttpsKeepsTheHostAndTheRequestTarget() throws Exception {
        PorticoServer server = TestServers.start("""
                locations = [{ path = "/", return = { status = 301, location = "https://$host$request_uri" } }]""");
        try {
            Response r = exchange(server, "GET /a/b%20c?x=1&y HTTP/1.1\r\nHost: Example.COM:8080\r\n\r\n");
            assertThat(r.status()).isEqualTo(301);
            assertThat(r.header("location")).isEqualTo("https://example.com/a/b%20c?x=1&y");
            Response v6 = exchange(server, "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n");
            assertThat(v6.header("location")).isEqualTo("https://[::1]/");
        } finally {
            server.stop();
        }
    }

    @Test
    void aBodyNamesEveryVariable() throws Exception {
        PorticoServer server = TestServers.start("""
                locations = [{ path = "/", return = {
                  status = 200, body = "$scheme|$host|${uri}|$args|$remote_addr|$request_uri|${host}x" } }]""");
        try {
            Response r = exchange(server, "GET /p/q?x=1&y=2 HTTP/1.1\r\nHost: front.test\r\n\r\n");
            assertThat(r.text()).isEqualTo("http|front.test|/p/q|x=1&y=2|127.0.0.1|/p/q?x=1&y=2|front.testx");
            assertThat(r.header("content-length")).isEqualTo(String.valueOf(r.body().length));
            Response noQuery = exchange(server, "GET /p HTTP/1.0\r\n\r\n");
            assertThat(noQuery.text()).as("no Host: the address reached").isEqualTo(
                    "http|127.0.0.1|/p||127.0.0.1|/p|127.0.0.1x");
            Response absolute =
                    exchange(server, "GET http://Other.Test:81/r?z HTTP/1.1\r\nHost: other.test:81\r\n\r\n");
            assertThat(absolute.text()).startsWith("http|other.test|");
        } finally {
            server.stop();
        }
    }

    @Test
    void aRequestHeaderAndACookieAreVariablesToo() throws Exception {
        PorticoServer server = TestServers.start("""
                locations = [{ path = "/", return = { status = 200, body = "[$http_x_forwarded_user|$cookie_session]" } }]""");
        try {
            Response r = exchange(server, "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-User: bob\r\n"
                    + "Cookie: theme=dark; session=\"s1\"\r\nCookie: other=1\r\n\r\n");
            assertThat(r.text()).isEqualTo("[bob|s1]");
            assertThat(exchange(server, "GET / HTTP/1.1\r\nHost: a\r\nCookie: sessionx=1\r\n\r\n").text())
                    .as("absent: empty").isEqualTo("[|]");
        } finally {
            server.stop();
        }
    }

    @Test
    void headerValuesTakeVariablesBothWays() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"))) {
            PorticoServer server = TestServers.start("""
                    upstreams { app { servers = ["127.0.0.1:%d"] } }
                    locations = [{ path = "/", proxy = app,
                      set-request-headers {
                        X-Original-URI = "$request_uri", X-Front = "$scheme://$host", X-Plain = "1" }
                      set-response-headers { X-Seen-Args = "args=$args", X-Client = "$remote_addr" } }]
                    """.formatted(app.port()));
            try {
                Response r = exchange(server, "GET /api/v?q=7 HTTP/1.1\r\nHost: Front.Test\r\n\r\n");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("x-seen-args")).isEqualTo("args=q=7");
                assertThat(r.header("x-client")).isEqualTo("127.0.0.1");
                TestUpstream.Request seen = app.requests.peek();
                assertThat(seen.header("x-original-uri")).isEqualTo("/api/v?q=7");
                assertThat(seen.header("x-front")).isEqualTo("http://front.test");
                assertThat(seen.header("x-plain")).isEqualTo("1");
            } finally {
                server.stop();
            }
        }
    }

    @Test
    void checkRefusesAnyOtherNameWithTheListOfKnownOnes() {
        String known = "(expected: one of $scheme, $host, $request_uri, $uri, $args, $remote_addr, $http_NAME,"
                + " $cookie_NAME)";
        assertThatThrownBy(() -> config("""
                locations = [{ path = "/", return = { status = 301, location = "https://$hostname/" } }]"""))
                .hasMessageContaining("return.location: 'https://$hostname/': '$hostname' is not a variable"
                        + " Portico knows " + known);
        assertThatThrownBy(() -> config("""
                locations = [{ path = "/", return = { status = 200, body = "costs $5" } }]"""))
                .hasMessageContaining("return.body: 'costs $5': '$5' is not a variable Portico knows");
        assertThatThrownBy(() -> config("""
                locations = [{ path = "/", return = { status = 200, body = "100 $" } }]"""))
                .hasMessageContaining("return.body: '100 $': a '$' that names no variable (there is no escape");
        assertThatThrownBy(() -> config("""
                upstreams { app { servers = ["127.0.0.1:1"] } }
                locations = [{ path = "/", proxy = app, set-request-headers { X-A = "${host" } }]"""))
                .hasMessageContaining("set-request-headers.X-A: '${host': '${host' has no closing brace");
        assertThatThrownBy(() -> config("""
                upstreams { app { servers = ["127.0.0.1:1"] } }
                locations = [{ path = "/", proxy = app, set-response-headers { X-A = "$upstream_addr" } }]"""))
                .hasMessageContaining("set-response-headers.X-A: '$upstream_addr': '$upstream_addr' is not a variable");
        assertThatThrownBy(() -> config("""
                locations = [{ path = "/", return = { status = 200, body = "$http_" } }]"""))
                .hasMessageContaining("'$http_' is not a variable");
    }

    private static void config(String body) {
        TestServers.config(body, Path.of("."));
    }
}
