package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests whose framing is in doubt (RFC 9112 sections 2-7, and the request-smuggling vectors that follow from
 * them) get their status and a closed connection, and the server goes on serving a normal request on a new
 * connection. Raw sockets, since ordinary clients cannot send these bytes.
 */
class FramingTest {
    static PorticoServer server;
    static int port;

    @BeforeAll
    static void start() {
        server = TestServers.start("""
                limits { max-body-size = 1k, max-header-count = 20, max-request-line = 1k, max-header-size = 2k }
                locations = [ { path = "/", return = { status = 200, body = "fine" } } ]
                """);
        port = TestServers.port(server);
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    static Stream<Arguments> badRequests() {
        String h = "Host: x\r\n";
        return Stream.of(
                bad("CL and TE together", 400,
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                bad("TE and CL together", 400,
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"),
                bad("two different Content-Lengths", 400,
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
                bad("two equal Content-Lengths", 400,
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: 1\r\nContent-Length: 1\r\n\r\na"),
                bad("Content-Length list", 400, "POST / HTTP/1.1\r\n" + h + "Content-Length: 1, 1\r\n\r\na"),
                bad("non-numeric Content-Length", 400, "POST / HTTP/1.1\r\n" + h + "Content-Length: abc\r\n\r\n"),
                bad("signed Content-Length", 400, "POST / HTTP/1.1\r\n" + h + "Content-Length: +1\r\n\r\na"),
                bad("negative Content-Length", 400, "POST / HTTP/1.1\r\n" + h + "Content-Length: -1\r\n\r\n"),
                bad("huge Content-Length", 400,
                        "POST / HTTP/1.1\r\n" + h + "Content-Length: 99999999999999999999999\r\n\r\n"),
                bad("TE chunked, identity", 400,
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"),
                bad("TE identity", 400, "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: identity\r\n\r\n"),
                bad("TE with leading space value", 400,
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding:  xchunked\r\n\r\n0\r\n\r\n"),
                bad("TE xchunked", 400, "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
                bad("TE Chunked capitalised", 400,
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: Chunked\r\n\r\n0\r\n\r\n"),
                bad("TE twice", 400, "POST / HTTP/1.1\r\n" + h
                        + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                bad("TE gzip, chunked", 400,
                        "POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
                bad("TE on HTTP/1.0", 400, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                bad("space before colon", 400, "GET / HTTP/1.1\r\n" + h + "Transfer-Encoding : chunked\r\n\r\n"),
                bad("bare LF line endings", 400, "GET / HTTP/1.1\n" + h.replace("\r", "") + "\n"),
                bad("bare LF inside head", 400, "GET / HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n"),
                bad("control character in header value", 400, "GET / HTTP/1.1\r\n" + h + "X-A: a\u0001b\r\n\r\n"),
                bad("control character in header name", 400, "GET / HTTP/1.1\r\n" + h + "X\u0001A: b\r\n\r\n"),
                bad("NUL in header value", 400, "GET / HTTP/1.1\r\n" + h + "X-A: a\u0000b\r\n\r\n"),
                bad("header without colon", 400, "GET / HTTP/1.1\r\n" + h + "NoColonHere\r\n\r\n"),
                bad("empty header name", 400, "GET / HTTP/1.1\r\n" + h + ": value\r\n\r\n"),
                bad("HTTP/1.2", 400, "GET / HTTP/1.2\r\n" + h + "\r\n"),
                bad("HTTP/2.0 on the wire", 400, "GET / HTTP/2.0\r\n" + h + "\r\n"),
                bad("lower-case version", 400, "GET / http/1.1\r\n" + h + "\r\n"),
                bad("HTTP/0.9 style", 400, "GET /\r\n\r\n"),
                bad("no Host on HTTP/1.1", 400, "GET / HTTP/1.1\r\n\r\n"),
                bad("two Hosts", 400, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
                bad("absolute-form with another host", 400, "GET http://evil.example/ HTTP/1.1\r\nHost: x\r\n\r\n"),
                bad("target without slash", 400, "GET index.html HTTP/1.1\r\n" + h + "\r\n"),
                bad("request line too long", 414, "GET /" + "a".repeat(2000) + " HTTP/1.1\r\n" + h + "\r\n"),
                bad("header block too large", 431,
                        "GET / HTTP/1.1\r\n" + h + "X-Big: " + "b".repeat(3000) + "\r\n\r\n"),
                bad("too many headers", 431, "GET / HTTP/1.1\r\n" + h + "X-A: 1\r\n".repeat(25) + "\r\n"),
                bad("declared body too large", 413, "POST / HTTP/1.1\r\n" + h + "Content-Length: 2000\r\n\r\n"),
                // HTTP/1.0: Netty keeps the first of several lengths there
                bad("two different Content-Lengths on HTTP/1.0", 400,
                        "POST / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
                bad("two equal Content-Lengths on HTTP/1.0", 400,
                        "POST / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na"),
                // Host: host [":" port], nothing else
                bad("Host list", 400, "GET / HTTP/1.1\r\nHost: a, b\r\n\r\n"),
                bad("Host list without space", 400, "GET / HTTP/1.1\r\nHost: a,b\r\n\r\n"),
                bad("Host with two ports", 400, "GET / HTTP/1.1\r\nHost: a:1:2\r\n\r\n"),
                bad("Host with a name for a port", 400, "GET / HTTP/1.1\r\nHost: a:http\r\n\r\n"),
                bad("Host port over 65535", 400, "GET / HTTP/1.1\r\nHost: a:65536\r\n\r\n"),
                bad("Host port of six digits", 400, "GET / HTTP/1.1\r\nHost: a:000080\r\n\r\n"),
                bad("Host with a space", 400, "GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
                bad("Host with a path", 400, "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"),
                bad("Host with userinfo", 400, "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n"),
                bad("Host percent-encoded", 400, "GET / HTTP/1.1\r\nHost: %61\r\n\r\n"),
                bad("Host port only", 400, "GET / HTTP/1.1\r\nHost: :80\r\n\r\n"),
                bad("Host empty on HTTP/1.1", 400, "GET / HTTP/1.1\r\nHost: \r\n\r\n"),
                bad("Host empty on HTTP/1.0", 400, "GET / HTTP/1.0\r\nHost:\r\n\r\n"),
                bad("Host IPv6 unclosed", 400, "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"),
                bad("Host IPv6 with text after it", 400, "GET / HTTP/1.1\r\nHost: [::1]x\r\n\r\n"),
                bad("Host IPv6 with a name inside", 400, "GET / HTTP/1.1\r\nHost: [evil.example]\r\n\r\n"),
                bad("Host non-ASCII", 400, "GET / HTTP/1.1\r\nHost: b\u00fccher.example\r\n\r\n"),
                // the request target: RFC 3986's characters only (HAProxy's strict default)
                bad("control byte in target", 400, "GET /\u0002 HTTP/1.1\r\n" + h + "\r\n"),
                bad("NUL in target", 400, "GET /a\u0000b HTTP/1.1\r\n" + h + "\r\n"),
                bad("DEL in target", 400, "GET /a\u007fb HTTP/1.1\r\n" + h + "\r\n"),
                bad("escape byte in target", 400, "GET /a\u001b[2J HTTP/1.1\r\n" + h + "\r\n"),
                bad("fragment in target", 400, "GET /a#b HTTP/1.1\r\n" + h + "\r\n"),
                bad("fragment after a query", 400, "GET /a?b#c HTTP/1.1\r\n" + h + "\r\n"),
                bad("Latin-1 byte in target", 400, "GET /caf\u00e9 HTTP/1.1\r\n" + h + "\r\n"),
                bad("raw UTF-8 in target", 400, "GET /caf\u00c3\u00a9 HTTP/1.1\r\n" + h + "\r\n"),
                bad("double quote in target", 400, "GET /a\"b HTTP/1.1\r\n" + h + "\r\n"),
                bad("angle bracket in target", 400, "GET /<script> HTTP/1.1\r\n" + h + "\r\n"),
                bad("backslash in target", 400, "GET /a\\b HTTP/1.1\r\n" + h + "\r\n"),
                bad("brace in target", 400, "GET /a?b={} HTTP/1.1\r\n" + h + "\r\n"),
                bad("pipe in target", 400, "GET /a|b HTTP/1.1\r\n" + h + "\r\n"),
                bad("caret in target", 400, "GET /a^b HTTP/1.1\r\n" + h + "\r\n"),
                bad("backtick in target", 400, "GET /a`b HTTP/1.1\r\n" + h + "\r\n"),
                // "*" is OPTIONS's alone; TRACE and CONNECT are not served
                bad("GET *", 400, "GET * HTTP/1.1\r\n" + h + "\r\n"),
                bad("POST *", 400, "POST * HTTP/1.1\r\n" + h + "Content-Length: 0\r\n\r\n"),
                bad("OPTIONS *x", 400, "OPTIONS *x HTTP/1.1\r\n" + h + "\r\n"),
                bad("TRACE", 405, "TRACE / HTTP/1.1\r\n" + h + "\r\n"),
                bad("TRACE *", 405, "TRACE * HTTP/1.1\r\n" + h + "\r\n"),
                bad("CONNECT", 405, "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n"),
                bad("CONNECT with tunnel bytes after it", 405,
                        "CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n\u0016\u0003\u0001\u0002\u0000"));
    }

    @ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {
        "GET / HTTP/1.1\r\nHost: x:8080\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x:\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: 127.0.0.1:65535\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: [2001:db8::ffff:192.0.2.1]\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: xn--bcher-kva.example_1~\r\n\r\n",
        "GET / HTTP/1.0\r\n\r\n",
        "GET /a-b._~/%7E!$&'()*+,;=:@/?q=/?:@!$&'()*+,;=%20[] HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET http://x:81/a HTTP/1.1\r\nHost: x:81\r\n\r\n"})
    void aValidHostAndTargetAreServed(String bytes) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(bytes).read();
            assertThat(r.status()).as(bytes).isEqualTo(200);
            assertThat(r.text()).isEqualTo("fine");
        }
    }

    @org.junit.jupiter.params.provider.ValueSource(strings = {"TRACE / HTTP/1.1", "CONNECT x:443 HTTP/1.1"})
    @ParameterizedTest(name = "{0}")
    void aRefusedMethodIsTold405WithTheMethodsAllowed(String line) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(line + "\r\nHost: x\r\nCookie: secret=1\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(405);
            assertThat(r.header("allow")).isEqualTo("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
            assertThat(r.text()).doesNotContain("secret");
            assertThat(c.closedByServer()).isTrue();
        }
    }

    private static Arguments bad(String name, int status, String bytes) {
        return Arguments.of(name, status, bytes);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("badRequests")
    void isRefusedAndTheConnectionClosed(String name, int status, String bytes) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send(bytes).read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).as("connection closed after " + name).isTrue();
        }
        assertThat(normalRequest().text()).isEqualTo("fine");
    }

    @Test
    void aSmuggledSecondRequestIsNeverAnswered() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(400);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest(name = "chunk size {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"FFFFFFFFFFFFFFFFFF", "zz", "-1", "1 1"})
    void aBrokenChunkClosesTheConnectionWithoutASecondResponse(String size) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + size + "\r\nab\r\n0\r\n\r\n"
                    + "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            // The location answers without reading the body, so its response may precede the broken chunk.
            Response first = c.read();
            assertThat(first.status()).isIn(200, 400);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(normalRequest().text()).isEqualTo("fine");
    }

    @Test
    void aValidChunkedBodyPasses() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            Response r = c.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "4\r\nabcd\r\n0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read().text()).isEqualTo("fine");
        }
    }

    @Test
    void absoluteFormMatchingHostIsServed() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.send("GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
    }

    private static Response normalRequest() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            return c.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n").read();
        }
    }
}
