package io.portico.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The request decoder on its own: what it emits for whole, split and pipelined requests, and which failure each
 * refused head or body carries (the framing handler turns TooLongHttpLineException into 414,
 * TooLongHttpHeaderException into 431, anything else into 400).
 */
class RequestDecoderTest {
    private static final int MAX_LINE = 64;
    private static final int MAX_FIELDS = 128;

    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(MAX_LINE, MAX_FIELDS, methods));

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    /** Writes {@code s} whole, or one byte a write, and returns what came out (the caller releases it). */
    private List<HttpObject> decode(String s, boolean byteByByte) {
        if (byteByByte) {
            for (int i = 0; i < s.length(); i++) {
                channel.writeInbound(bytes(s.substring(i, i + 1)));
            }
        } else {
            channel.writeInbound(bytes(s));
        }
        List<HttpObject> out = new ArrayList<>();
        for (Object o; (o = channel.readInbound()) != null; ) {
            out.add((HttpObject) o);
        }
        return out;
    }

    /** The text of the bodies in {@code out}, joined, each content released. */
    private static String body(List<HttpObject> out) {
        StringBuilder b = new StringBuilder();
        for (HttpObject o : out) {
            if (o instanceof HttpContent c) {
                b.append(c.content().toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(o);
        }
        return b.toString();
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @MethodSource("splits")
    void aBodilessRequestIsOneFullRequestWithItsFieldsAsSent(boolean byteByByte) {
        List<HttpObject> out = decode("\r\nGET /a?b=c HTTP/1.1\r\nHost: x\r\nX-Long:  a  b \t\r\nEmpty:\r\n"
                + "accept: */*\r\n\r\n", byteByByte);
        assertThat(out).hasSize(1);
        FullHttpRequest r = (FullHttpRequest) out.get(0);
        assertThat(r.decoderResult().isSuccess()).isTrue();
        assertThat(r.method()).isSameAs(HttpMethod.GET);
        assertThat(r.protocolVersion()).isSameAs(HttpVersion.HTTP_1_1);
        assertThat(r.uri()).isEqualTo("/a?b=c");
        assertThat(r.content().readableBytes()).isZero();
        FieldList f = (FieldList) r.headers();
        assertThat(f.size()).isEqualTo(4);
        assertThat(f.name(0)).isSameAs(FieldNames.of("Host".getBytes(StandardCharsets.US_ASCII), 0, 4));
        assertThat(f.name(3).toString()).isEqualTo("accept");
        assertThat(f.value(1).toString()).isEqualTo("a  b");
        assertThat(f.value(2).toString()).isEmpty();
        assertThat(r.headers().get(HttpHeaderNames.ACCEPT)).isEqualTo("*/*");
        assertThat(methods).containsExactly(HttpMethod.GET);
        r.release();
        assertFalse(channel.finishAndReleaseAll());
    }

    static Stream<Boolean> splits() {
        return Stream.of(false, true);
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @MethodSource("splits")
    void aContentLengthBodyFollowsItsHeadAsSlicesThenTheNextRequest(boolean byteByByte) {
        List<HttpObject> out = decode("POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "HEAD /h HTTP/1.0\r\n\r\n", byteByByte);
        assertThat(out.get(0)).isInstanceOf(HttpRequest.class).isNotInstanceOf(FullHttpRequest.class);
        assertThat(out.get(out.size() - 2)).isInstanceOf(LastHttpContent.class);
        FullHttpRequest head = (FullHttpRequest) out.get(out.size() - 1);
        assertThat(head.method()).isSameAs(HttpMethod.HEAD);
        assertThat(head.protocolVersion()).isSameAs(HttpVersion.HTTP_1_0);
        assertThat(out.subList(1, out.size() - 1)).hasSize(byteByByte ? 5 : 1);
        assertThat(body(out)).isEqualTo("hello");
        assertThat(methods).containsExactly(HttpMethod.POST, HttpMethod.HEAD);
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void pipelinedRequestsInOneReadComeOutInOrder() {
        List<HttpObject> out = decode("GET /1 HTTP/1.1\r\nHost: x\r\n\r\nGET /2 HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /3 HTTP/1.1\r\nHo", false);
        assertThat(out).extracting(o -> ((HttpRequest) o).uri()).containsExactly("/1", "/2");
        body(out);
        out = decode("st: x\r\n\r\n", false);
        assertThat(out).extracting(o -> ((HttpRequest) o).uri()).containsExactly("/3");
        body(out);
        assertFalse(channel.finishAndReleaseAll());
    }

    @ParameterizedTest(name = "byte by byte: {0}")
    @MethodSource("splits")
    void aChunkedBodyWithExtensionsAndTrailers(boolean byteByByte) {
        List<HttpObject> out = decode("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5 ; a=b;c=\"d \\\" e\"\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-Sum: 1\r\nContent-Length: 9\r\n\r\n"
                + "GET /next HTTP/1.1\r\nHost: x\r\n\r\n", byteByByte);
        LastHttpContent end = (LastHttpContent) out.get(out.size() - 2);
        assertThat(end.trailingHeaders().get("X-Sum")).isEqualTo("1");
        assertThat(end.trailingHeaders().contains(HttpHeaderNames.CONTENT_LENGTH)).as("framing is no trailer's")
                .isFalse();
        assertThat(((HttpRequest) out.get(out.size() - 1)).uri()).isEqualTo("/next");
        assertThat(body(out)).isEqualTo("hello0123456789");
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void anObsFoldIsUnfoldedWithOneSpace() {
        List<HttpObject> out = decode("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n \t b\r\n\r\n", false);
        assertThat(((HttpRequest) out.get(0)).headers().get("X-A")).isEqualTo("a b");
        body(out);
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void fieldsOfExactlyMaxHeaderSizePassCountedWithTheirCrlfs() {
        String fields = "Host: x\r\nX-Pad: " + "p".repeat(MAX_FIELDS - 9 - 9) + "\r\n";
        assertThat(fields).hasSize(MAX_FIELDS);
        String line = "GET /" + "a".repeat(MAX_LINE - 14) + " HTTP/1.1";
        assertThat(line).hasSize(MAX_LINE);
        List<HttpObject> out = decode(line + "\r\n" + fields + "\r\n", true);
        assertThat(out.get(0).decoderResult().isSuccess()).isTrue();
        body(out);
        assertFalse(channel.finishAndReleaseAll());
    }

    static Stream<Arguments> refused() {
        String h = "GET / HTTP/1.1\r\nHost: x\r\n";
        String post = "POST / HTTP/1.1\r\nHost: x\r\n";
        String chunked = post + "Transfer-Encoding: chunked\r\n\r\n";
        return Stream.of(
                refused("request line one byte over", TooLongHttpLineException.class,
                        "GET /" + "a".repeat(MAX_LINE - 13) + " HTTP/1.1\r\n\r\n"),
                refused("request line never ending", TooLongHttpLineException.class, "GET /" + "a".repeat(200)),
                refused("control bytes before the request line", TooLongHttpLineException.class,
                        "\r\n".repeat(MAX_LINE)),
                refused("fields one byte over", TooLongHttpHeaderException.class,
                        "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: " + "p".repeat(MAX_FIELDS - 9 - 8) + "\r\n\r\n"),
                refused("fields never ending", TooLongHttpHeaderException.class, h + "X: " + "p".repeat(300)),
                refused("bare LF after the request line", MalformedRequestException.class, "GET / HTTP/1.1\nHost: x\r\n\r\n"),
                refused("bare LF after a field", MalformedRequestException.class, h + "X: y\n\r\n"),
                refused("bare LF as the empty line", MalformedRequestException.class, h + "\n"),
                refused("lower-case version", MalformedRequestException.class, "GET / http/1.1\r\nHost: x\r\n\r\n"),
                refused("HTTP/2.0", MalformedRequestException.class, "GET / HTTP/2.0\r\nHost: x\r\n\r\n"),
                refused("no version", MalformedRequestException.class, "GET /\r\nHost: x\r\n\r\n"),
                refused("a fourth word", MalformedRequestException.class, "GET / HTTP/1.1 x\r\nHost: x\r\n\r\n"),
                refused("space at the line's end", MalformedRequestException.class, "GET / HTTP/1.1 \r\n\r\n"),
                refused("method not a token", MalformedRequestException.class, "G(T / HTTP/1.1\r\n\r\n"),
                refused("space before the colon", MalformedRequestException.class, h + "X-A : b\r\n\r\n"),
                refused("no colon", MalformedRequestException.class, h + "X-A b\r\n\r\n"),
                refused("empty name", MalformedRequestException.class, h + ": b\r\n\r\n"),
                refused("control byte in a value", MalformedRequestException.class, h + "X-A: a\u0001b\r\n\r\n"),
                refused("CR in a value", MalformedRequestException.class, h + "X-A: a\rb\r\n\r\n"),
                refused("DEL in a value", MalformedRequestException.class, h + "X-A: a\u007f\r\n\r\n"),
                refused("fold before any field", MalformedRequestException.class, "GET / HTTP/1.1\r\n x\r\n\r\n"),
                refused("two Content-Lengths", MalformedRequestException.class,
                        post + "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx"),
                refused("two Content-Lengths on 1.0", MalformedRequestException.class,
                        "POST / HTTP/1.0\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx"),
                refused("a list as Content-Length", MalformedRequestException.class, post + "Content-Length: 1,1\r\n\r\nx"),
                refused("a signed Content-Length", MalformedRequestException.class, post + "Content-Length: +1\r\n\r\nx"),
                refused("Content-Length and Transfer-Encoding", MalformedRequestException.class,
                        post + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
                refused("chunk size then space", MalformedRequestException.class, chunked + "5 \r\nhello\r\n0\r\n\r\n"),
                refused("bare ; after the size", MalformedRequestException.class, chunked + "0;\r\n\r\n"),
                refused("no chunk size", MalformedRequestException.class, chunked + ";a\r\n\r\n"),
                refused("chunk size overflow", MalformedRequestException.class, chunked + "80000000\r\n"),
                refused("chunk line over max-request-line", MalformedRequestException.class,
                        chunked + "5;a=" + "b".repeat(MAX_LINE) + "\r\nhello\r\n0\r\n\r\n"),
                refused("chunk data without CRLF", MalformedRequestException.class, chunked + "1\r\nab\r\n0\r\n\r\n"),
                refused("chunk line with a bare LF", MalformedRequestException.class, chunked + "1\nx\r\n0\r\n\r\n"),
                refused("trailers over max-header-size", TooLongHttpHeaderException.class,
                        chunked + "0\r\nX: " + "t".repeat(MAX_FIELDS) + "\r\n\r\n"),
                refused("invalid trailer", MalformedRequestException.class, chunked + "0\r\nX : t\r\n\r\n"));
    }

    private static Arguments refused(String name, Class<? extends Throwable> cause, String bytes) {
        return Arguments.of(name, cause, bytes);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void isAFailedMessageWhole(String name, Class<? extends Throwable> cause, String bytes) {
        assertRefused(decode(bytes + "GET /after HTTP/1.1\r\nHost: x\r\n\r\n", false), cause);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void isAFailedMessageByteByByte(String name, Class<? extends Throwable> cause, String bytes) {
        assertRefused(decode(bytes + "GET /after HTTP/1.1\r\nHost: x\r\n\r\n", true), cause);
    }

    /** One failed message, the last thing out (nothing after it is read), with the cause given. */
    private void assertRefused(List<HttpObject> out, Class<? extends Throwable> cause) {
        HttpObject last = out.get(out.size() - 1);
        assertThat(last.decoderResult().isFailure()).isTrue();
        assertThat(last.decoderResult().cause()).isInstanceOf(cause);
        assertThat(out.subList(0, out.size() - 1)).allMatch(o -> o.decoderResult().isSuccess());
        if (last instanceof HttpRequest) {
            assertThat(methods).hasSize((int) out.stream().filter(o -> o instanceof HttpRequest).count());
        }
        body(out);
        assertThat(decode("GET /more HTTP/1.1\r\nHost: x\r\n\r\n", false)).isEmpty();
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aRefusedHeadKeepsItsMethodForTheResponse() {
        List<HttpObject> out = decode("HEAD / HTTP/1.1\r\nHost: x\r\nX: " + "p".repeat(300), false);
        assertThat(((HttpRequest) out.get(0)).method()).isSameAs(HttpMethod.HEAD);
        assertThat(methods).containsExactly(HttpMethod.HEAD);
        body(out);
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aHeadCutShortAfterItsRequestLineIsRefusedAtTheClose() {
        assertThat(decode("PUT / HTTP/1.1\r\nHost:", false)).isEmpty();
        channel.finish();
        HttpRequest r = channel.readInbound();
        assertThat(r.decoderResult().cause()).isInstanceOf(PrematureChannelClosureException.class);
        assertThat(r.method()).isSameAs(HttpMethod.PUT);
        ReferenceCountUtil.release(r);
        assertFalse(channel.finishAndReleaseAll());
    }

    @Test
    void aBodyCutShortJustEnds() {
        List<HttpObject> out = decode("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nabc", false);
        assertThat(body(out)).isEqualTo("abc");
        assertFalse(channel.finishAndReleaseAll());
    }
}
