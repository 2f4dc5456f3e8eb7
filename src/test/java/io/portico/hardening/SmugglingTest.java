package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Request-smuggling vectors (RFC 9112 sections 6-7; PortSwigger's CL.TE, TE.CL and TE.TE obfuscations) sent
 * through a proxy location to a recording upstream. A refused request gets its status, a closed connection and
 * not one byte at the upstream; a tolerated spelling is framed one way only, so the upstream sees exactly one
 * request and never the smuggled one. Either way a normal request on a new connection is still served.
 */
class SmugglingTest {
    @RegisterExtension
    static final SharedPortico SHARED = new SharedPortico();

    private static final String SMUGGLED = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

    private static ProxiedPortico portico() {
        return SHARED.get();
    }

    static Stream<Arguments> refused() {
        String p = "POST / HTTP/1.1\r\nHost: x\r\n";
        String ps = "POST /stream/ HTTP/1.1\r\nHost: x\r\n";
        String chunkedHead = p + "Transfer-Encoding: chunked\r\n\r\n";
        String streamChunkedHead = ps + "Transfer-Encoding: chunked\r\n\r\n";
        return Stream.of(
                // CL.TE and TE.CL: both framings present
                refused("CL.TE", 400,
                        p + "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG" + SMUGGLED),
                refused("TE.CL", 400,
                        p + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n"),
                refused("CL.TE streaming", 400,
                        ps + "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nG" + SMUGGLED),
                refused("TE.CL streaming", 400,
                        ps + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n"),
                refused("CL.TE with CL 0", 400,
                        p + "Content-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                // TE.TE: obfuscated Transfer-Encoding, alone and beside a Content-Length
                refused("TE then TE: x", 400,
                        p + "Transfer-Encoding: chunked\r\nTransfer-encoding: x\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE: x then TE", 400,
                        p + "Transfer-Encoding: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE with vertical tab", 400, p + "Transfer-Encoding:\u000bchunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE with form feed", 400, p + "Transfer-Encoding:\u000cchunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("CL + TE with vertical tab", 400,
                        p + "Content-Length: 5\r\nTransfer-Encoding:\u000bchunked\r\n\r\n0\r\n\r\n"),
                refused("CL + TE tab before colon", 400,
                        p + "Content-Length: 5\r\nTransfer-Encoding\t: chunked\r\n\r\n0\r\n\r\n"),
                refused("CL + TE space before colon", 400,
                        p + "Content-Length: 5\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n"),
                refused("CL + TE xchunked", 400,
                        p + "Content-Length: 5\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n"),
                refused("CL + TE chunked-false", 400,
                        p + "Content-Length: 5\r\nTransfer-Encoding: chunked-false\r\n\r\n0\r\n\r\n"),
                refused("TE quoted", 400, p + "Transfer-Encoding: \"chunked\"\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE with parameter", 400, p + "Transfer-Encoding: chunked;q=1\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE chunked, chunked", 400,
                        p + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE , chunked", 400, p + "Transfer-Encoding: , chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE empty", 400, p + "Transfer-Encoding: \r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE deflate", 400, p + "Transfer-Encoding: deflate\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("TE non-ASCII k", 400, p + "Transfer-Encoding: chun\u212aed\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("obs-fold TE value", 400, p + "Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n" + SMUGGLED),
                refused("leading space on first header", 400,
                        "POST / HTTP/1.1\r\n Transfer-Encoding: chunked\r\nHost: x\r\n\r\n0\r\n\r\n"),
                refused("TE name with NUL", 400, p + "Transfer-Encoding\u0000: chunked\r\n\r\n0\r\n\r\n"),
                refused("TE on HTTP/1.0 with CL", 400,
                        "POST / HTTP/1.0\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                // Content-Length spellings
                refused("CL 0x prefix", 400, p + "Content-Length: 0x5\r\n\r\nhello"),
                refused("CL decimal point", 400, p + "Content-Length: 5.0\r\n\r\nhello"),
                refused("CL underscore", 400, p + "Content-Length: 1_0\r\n\r\nhelloworld"),
                refused("CL empty", 400, p + "Content-Length: \r\n\r\n"),
                refused("CL with inner space", 400, p + "Content-Length: 1 0\r\n\r\nhelloworld"),
                refused("CL with vertical tab", 400, p + "Content-Length:\u000b5\r\n\r\nhello"),
                refused("CL twice, differing case", 400, p + "Content-Length: 5\r\ncontent-length: 7\r\n\r\nhello!!"),
                refused("CL space before colon", 400, p + "Content-Length : 5\r\n\r\nhello"),
                // chunked bodies whose framing is broken (buffered location: nothing is forwarded before the end)
                refused("chunk size 0x prefix", 400, chunkedHead + "0x5\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size leading space", 400, chunkedHead + " 5\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size leading tab", 400, chunkedHead + "\t5\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size plus sign", 400, chunkedHead + "+5\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size not hex", 400, chunkedHead + "g\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size overflow", 400, chunkedHead + "10000000000000005\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size line LF only", 400, chunkedHead + "5\nhello\r\n0\r\n\r\n"),
                refused("chunk data LF terminator", 400, chunkedHead + "5\r\nhello\n0\r\n\r\n"),
                refused("chunk data without terminator", 400, chunkedHead + "5\r\nhelloXX0\r\n\r\n"),
                refused("chunk longer than its size", 400, chunkedHead + "3\r\nhello\r\n0\r\n\r\n"),
                refused("last chunk LF only", 400, chunkedHead + "5\r\nhello\r\n0\n\n"),
                refused("chunk extension with control character", 400,
                        chunkedHead + "5;a\u0001b\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension bare CR", 400, chunkedHead + "5;a\rb\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension bare ;", 400, chunkedHead + "5;\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension ; then space", 400, chunkedHead + "5; \r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension ;;", 400, chunkedHead + "5;;a\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension trailing ;", 400, chunkedHead + "5;a=b;\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension without a name", 400, chunkedHead + "5;=b\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension empty value", 400, chunkedHead + "5;a=\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension two =", 400, chunkedHead + "5;a==b\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension space in name", 400, chunkedHead + "5;a b\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension quoted name", 400, chunkedHead + "5;\"a\"\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension unterminated quote", 400,
                        chunkedHead + "5;a=\"b\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension text after a quote", 400,
                        chunkedHead + "5;a=\"b\"c\r\nhello\r\n0\r\n\r\n"),
                refused("chunk extension separator in token", 400, chunkedHead + "5;a=b@c\r\nhello\r\n0\r\n\r\n"),
                refused("chunk size then space", 400, chunkedHead + "5 \r\nhello\r\n0\r\n\r\n"),
                refused("last chunk bare ;", 400, chunkedHead + "5\r\nhello\r\n0;\r\n\r\n"),
                refused("chunk line over max-request-line (not 414)", 400,
                        chunkedHead + "5;a=" + "b".repeat(2000) + "\r\nhello\r\n0\r\n\r\n"),
                refused("64 KiB chunk extension (not 414)", 400,
                        chunkedHead + "5;a=" + "b".repeat(64 * 1024) + "\r\nhello\r\n0\r\n\r\n"),
                refused("chunks over max-body-size", 413,
                        chunkedHead + "400\r\n" + "a".repeat(1024) + "\r\n1\r\nb\r\n0\r\n\r\n"),
                refused("one chunk over max-body-size", 413,
                        chunkedHead + "401\r\n" + "a".repeat(1025) + "\r\n0\r\n\r\n"),
                refused("declared body over max-body-size", 413, p + "Content-Length: 1025\r\n\r\n"),
                refused("declared body over max-body-size streaming", 413, ps + "Content-Length: 1025\r\n\r\n"),
                refused("missing final CRLF (times out)", 408, chunkedHead + "5\r\nhello\r\n0\r\n"),
                refused("missing last chunk (times out)", 408, chunkedHead + "5\r\nhello\r\n"),
                refused("CL body short (times out)", 408, p + "Content-Length: 10\r\n\r\nhello"));
    }

    private static Arguments refused(String name, int status, String bytes) {
        return Arguments.of(name, status, bytes);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("refused")
    void isRefusedClosedAndNeverReachesTheUpstream(String name, int status, String bytes) throws Exception {
        try (RawHttp c = new RawHttp(portico().port)) {
            Response r = c.send(bytes).read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(c.closedByServer()).as("connection closed after " + name).isTrue();
        }
        assertThat(portico().upstream.bytesReceived()).as("bytes at the upstream after " + name).isZero();
        portico().assertStillServes();
        assertThat(portico().upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /normal HTTP/1.1");
    }

    @Test
    void aStreamedChunkedBodyOverTheLimitNeverReachesTheUpstreamWhole() throws Exception {
        try (RawHttp c = new RawHttp(portico().port)) {
            Response r = c.send("POST /stream/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n401\r\n"
                    + "a".repeat(1025) + "\r\n0\r\n\r\n").read();
            assertThat(r.status()).isEqualTo(413);
            assertThat(c.closedByServer()).isTrue();
        }
        // Streaming forwards the head before the body is known: the upstream may see it, never a whole request.
        portico().assertStillServes();
        assertThat(portico().upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /normal HTTP/1.1");
    }

    @Test
    void obsFoldIsUnfoldedIntoThePreviousValueAndTheLeftoverIsAnsweredInOrder() throws Exception {
        try (RawHttp c = new RawHttp(portico().port)) {
            c.send("POST / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED);
            Response first = c.read();
            assertThat(first.status()).isEqualTo(200);
            assertThat(first.text()).startsWith("ok 0 ");
            assertThat(c.read().status()).as("the leftover \"0\" line").isEqualTo(400);
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(portico().upstream.requests()).hasSize(1);
        assertThat(portico().upstream.requests().get(0).head()).contains("X-A: a Transfer-Encoding: chunked\r\n")
                .doesNotContainIgnoringCase("\r\nTransfer-Encoding");
        portico().assertStillServes();
    }

    @Test
    void aBadRequestPipelinedBehindAGoodOneIsAnsweredAfterIt() throws Exception {
        try (RawHttp c = new RawHttp(portico().port)) {
            c.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\nPOST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + SMUGGLED);
            assertThat(c.read().status()).isEqualTo(200);
            Response second = c.read();
            assertThat(second.status()).isEqualTo(400);
            assertThat(second.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        assertThat(portico().upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly("GET /first HTTP/1.1");
    }

    static Stream<Arguments> tolerated() {
        String p = "POST / HTTP/1.1\r\nHost: x\r\n";
        String chunkedHead = p + "Transfer-Encoding: chunked\r\n\r\n";
        return Stream.of(
                tolerated("TE after a tab", p + "Transfer-Encoding:\tchunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 5),
                tolerated("TE with trailing space",
                        p + "Transfer-Encoding: chunked \r\n\r\n5\r\nhello\r\n0\r\n\r\n", 5),
                tolerated("TE without space", p + "Transfer-Encoding:chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 5),
                tolerated("TE name lower-case", p + "transfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 5),
                tolerated("CL after a tab", p + "Content-Length:\t5\r\n\r\nhello", 5),
                tolerated("CL leading zeros", p + "Content-Length: 005\r\n\r\nhello", 5),
                tolerated("chunk extension with junk", chunkedHead + "5;foo=bar;baz\r\nhello\r\n0;x=\"q\"\r\n\r\n", 5),
                tolerated("chunk extension with a quoted-pair",
                        chunkedHead + "5;a=b;c=\"d; \\\"e\"\r\nhello\r\n0\r\n\r\n", 5),
                tolerated("chunk size upper-case hex", chunkedHead + "A\r\nhellohello\r\n0\r\n\r\n", 10),
                tolerated("chunk size leading zeros", chunkedHead + "0005\r\nhello\r\n0\r\n\r\n", 5),
                tolerated("trailer field", chunkedHead + "5\r\nhello\r\n0\r\nX-Trailer: a\r\n\r\n", 5),
                tolerated("body that looks like a request",
                        p + "Content-Length: " + SMUGGLED.length() + "\r\n\r\n" + SMUGGLED,
                        SMUGGLED.length()),
                tolerated("chunk that looks like a request",
                        chunkedHead + Integer.toHexString(SMUGGLED.length()) + "\r\n" + SMUGGLED + "\r\n0\r\n\r\n",
                        SMUGGLED.length()),
                tolerated("GET with a body", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", 5),
                tolerated("Transfer_Encoding is just a header",
                        p + "Content-Length: 5\r\nTransfer_Encoding: chunked\r\n\r\nhello", 5));
    }

    private static Arguments tolerated(String name, String bytes, long bodyLength) {
        return Arguments.of(name, bytes, bodyLength);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tolerated")
    void isFramedOneWayOnly(String name, String bytes, long bodyLength) throws Exception {
        try (RawHttp c = new RawHttp(portico().port)) {
            Response r = c.send(bytes).read();
            assertThat(r.status()).as(name).isEqualTo(200);
            assertThat(r.text()).startsWith("ok " + bodyLength + " ");
            // nothing left over on the connection: the next request on it is the next one the upstream sees
            assertThat(c.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n").read().status()).isEqualTo(200);
        }
        assertThat(portico().upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .containsExactly(bytes.substring(0, bytes.indexOf("\r\n")), "GET /next HTTP/1.1");
        assertThat(portico().upstream.requests().get(0).head()).doesNotContainIgnoringCase("transfer_encoding");
        portico().assertStillServes();
        assertThat(portico().upstream.requests()).extracting(RecordingUpstream.Request::requestLine)
                .noneMatch(line -> line.contains("smuggled"));
    }
}
