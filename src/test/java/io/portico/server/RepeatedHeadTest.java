package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The error head a connection repeats is copied from the last one only when it is the same: Portico's encoder,
 * kept head and all, writes the bytes Netty's own encoder writes for any sequence of responses.
 */
class RepeatedHeadTest {

    private static FullHttpResponse rejection(String retryAfter, String date) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                Unpooled.copiedBuffer("<p>busy</p>\n", StandardCharsets.US_ASCII));
        r.headers().set(HttpHeaderNames.SERVER, AsciiString.cached("portico"));
        r.headers().set(HttpHeaderNames.DATE, date);
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
        r.headers().set(HttpHeaderNames.RETRY_AFTER, retryAfter);
        return r;
    }

    private static ByteBuf encoded(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    @Test
    void matchesTheSameCharactersOnlyAndWritesTheKeptBytes() {
        RepeatedHead head = new RepeatedHead();
        FullHttpResponse first = rejection("1", "Mon, 30 Nov 2026 16:00:00 GMT");
        assertThat(head.matches(first)).isFalse(); // nothing kept yet
        ByteBuf bytes = encoded("xxHTTP/1.1 503 Service Unavailable\r\n...\r\n\r\nbody");
        int to = bytes.readableBytes() - "body".length();
        head.remember(first, bytes, 2, to);

        assertThat(head.matches(rejection(new String("1"), "Mon, 30 Nov 2026 16:00:00 GMT"))).isTrue();
        assertThat(head.matches(rejection("2", "Mon, 30 Nov 2026 16:00:00 GMT"))).isFalse();
        assertThat(head.matches(rejection("1", "Mon, 30 Nov 2026 16:00:01 GMT"))).isFalse();
        FullHttpResponse oneMore = rejection("1", "Mon, 30 Nov 2026 16:00:00 GMT");
        oneMore.headers().add("x-extra", "y");
        assertThat(head.matches(oneMore)).isFalse();
        FullHttpResponse oneLess = rejection("1", "Mon, 30 Nov 2026 16:00:00 GMT");
        oneLess.headers().remove(HttpHeaderNames.RETRY_AFTER);
        assertThat(head.matches(oneLess)).isFalse();
        FullHttpResponse otherReason = rejection("1", "Mon, 30 Nov 2026 16:00:00 GMT");
        otherReason.setStatus(new HttpResponseStatus(503, "Slow Down"));
        assertThat(head.matches(otherReason)).isFalse();
        FullHttpResponse http10 = rejection("1", "Mon, 30 Nov 2026 16:00:00 GMT");
        http10.setProtocolVersion(HttpVersion.HTTP_1_0);
        assertThat(head.matches(http10)).isFalse();

        ByteBuf out = Unpooled.buffer();
        head.writeTo(out);
        assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 503 Service Unavailable\r\n...\r\n\r\n");
        for (Object o : List.of(first, oneMore, oneLess, otherReason, http10, bytes, out)) {
            ReferenceCountUtil.release(o);
        }
    }

    @Test
    void aHeadTooLargeToKeepForgetsTheOneBefore() {
        RepeatedHead head = new RepeatedHead();
        FullHttpResponse small = rejection("1", "d");
        ByteBuf bytes = encoded("HTTP/1.1 503 x\r\n\r\n");
        head.remember(small, bytes, 0, bytes.readableBytes());
        assertThat(head.matches(rejection("1", "d"))).isTrue();

        FullHttpResponse many = rejection("1", "d");
        for (int i = 0; i < 30; i++) {
            many.headers().add("x-" + i, "v");
        }
        head.remember(many, bytes, 0, bytes.readableBytes());
        assertThat(head.matches(many)).isFalse();
        assertThat(head.matches(rejection("1", "d"))).isFalse();
        for (Object o : List.of(small, many, bytes)) {
            ReferenceCountUtil.release(o);
        }
    }

    /** One response of the sequence: built anew each time from fresh objects, as a handler would. */
    private record Step(String method, Supplier<List<Object>> response) {}

    private static List<Object> full(HttpVersion version, HttpResponseStatus status, String body, String... headers) {
        FullHttpResponse r = new DefaultFullHttpResponse(version, status,
                Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII));
        r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length());
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(new String(headers[i]), new String(headers[i + 1])); // equal, never the same object
        }
        return List.of(r);
    }

    private static List<Object> streamed(HttpResponseStatus status, String body) {
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, status);
        head.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length());
        HttpContent part = new DefaultHttpContent(Unpooled.copiedBuffer(body, StandardCharsets.US_ASCII));
        return List.of(head, part, LastHttpContent.EMPTY_LAST_CONTENT);
    }

    @Test
    void writesWhatNettysEncoderWritesForAnySequence() {
        String big = "x".repeat(5000);
        HttpResponseStatus slowDown = new HttpResponseStatus(429, "Slow Down");
        List<Step> steps = new ArrayList<>();
        for (String method : List.of("GET", "HEAD")) {
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "page", "retry-after", "2", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:01 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "other page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.TOO_MANY_REQUESTS,
                    "page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, slowDown,
                    "page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_0, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "page", "retry-after", "1", "date", "Mon, 30 Nov 2026 16:00:00 GMT", "connection", "close")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND, big,
                    "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, "ok",
                    "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            // 200s keep their own head: a file polled again and again, then one changed, a bigger one, a 1.0 one
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, "file",
                    "etag", "\"1-4\"", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, "fil2",
                    "etag", "\"2-4\"", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, big,
                    "etag", "\"1-4\"", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_0, HttpResponseStatus.OK, "file",
                    "etag", "\"1-4\"", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> full(HttpVersion.HTTP_1_1, new HttpResponseStatus(200, "Fine"), "file",
                    "etag", "\"1-4\"", "date", "Mon, 30 Nov 2026 16:00:00 GMT")));
            steps.add(new Step(method, () -> streamed(HttpResponseStatus.SERVICE_UNAVAILABLE, "streamed")));
            steps.add(new Step(method, () -> streamed(HttpResponseStatus.OK, "streamed")));
        }
        EmbeddedChannel portico = new EmbeddedChannel();
        ServerCodec.addTo(portico.pipeline(), 4096, 8192);
        EmbeddedChannel netty = new EmbeddedChannel(new HttpServerCodec());
        Random random = new Random(20261130);
        int repeats = 0;
        Step last = null;
        try {
            for (int i = 0; i < 3000; i++) {
                // Runs of the same step are what the kept head is for: make them common.
                Step step = last != null && random.nextInt(3) > 0 ? last : steps.get(random.nextInt(steps.size()));
                repeats += step == last ? 1 : 0;
                last = step;
                String request = step.method() + " / HTTP/1.1\r\nHost: x\r\n\r\n";
                String expected = exchange(netty, request, step.response().get());
                String actual = exchange(portico, request, step.response().get());
                assertThat(actual).as("step %d: %s", i, step.method()).isEqualTo(expected);
            }
        } finally {
            portico.finishAndReleaseAll();
            netty.finishAndReleaseAll();
        }
        assertThat(repeats).isGreaterThan(1500);
    }

    /** The second identical 200 of a connection leaves as one buffer, head and small body together. */
    @Test
    void aRepeated200IsOneCopiedBuffer() {
        EmbeddedChannel portico = new EmbeddedChannel();
        ServerCodec.addTo(portico.pipeline(), 4096, 8192);
        String body = "b".repeat(1024);
        try {
            List<Integer> buffers = new ArrayList<>();
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                portico.writeInbound(Unpooled.copiedBuffer("GET /f HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII));
                Object in;
                while ((in = portico.readInbound()) != null) {
                    ReferenceCountUtil.release(in);
                }
                for (Object part : full(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body, "etag", "\"1-400\"")) {
                    portico.writeOutbound(part);
                }
                StringBuilder text = new StringBuilder();
                int n = 0;
                Object out;
                while ((out = portico.readOutbound()) != null) {
                    n++;
                    text.append(((ByteBuf) out).toString(StandardCharsets.US_ASCII));
                    ((ByteBuf) out).release();
                }
                buffers.add(n);
                sent.add(text.toString());
            }
            assertThat(buffers).containsExactly(2, 1, 1); // Netty's head and body, then the kept head with the body
            assertThat(sent.get(1)).isEqualTo(sent.get(0)).isEqualTo(sent.get(2));
        } finally {
            portico.finishAndReleaseAll();
        }
    }

    /**
     * A proxied body is a slice of the upstream's pooled direct buffer, read from past its start: copied behind the
     * kept head from its reader index, byte for byte, and released.
     */
    @Test
    void aRepeated200CopiesABodyThatIsASliceOfADirectBuffer() {
        EmbeddedChannel portico = new EmbeddedChannel();
        ServerCodec.addTo(portico.pipeline(), 4096, 8192);
        String body = "0123456789".repeat(30);
        List<ByteBuf> reads = new ArrayList<>();
        try {
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ByteBuf read = portico.alloc().directBuffer(512).writeBytes(
                        ("HTTP/1.1 200 OK\r\n\r\n" + body + "trailing").getBytes(StandardCharsets.US_ASCII));
                reads.add(read);
                ByteBuf slice = read.retainedSlice(read.readerIndex() + 19, body.length());
                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, slice);
                r.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length());
                sent.add(exchange(portico, "GET /f HTTP/1.1\r\nHost: x\r\n\r\n", List.of(r)));
                assertThat(read.refCnt()).as("the body's reference is released, the read's own kept").isEqualTo(1);
            }
            assertThat(sent.get(0)).endsWith("\r\n\r\n" + body);
            assertThat(sent.get(1)).isEqualTo(sent.get(0)).isEqualTo(sent.get(2));
        } finally {
            reads.forEach(ByteBuf::release);
            portico.finishAndReleaseAll();
        }
    }

    /** Sends the request in, takes it out, writes the response parts and returns the bytes that left. */
    private static String exchange(EmbeddedChannel channel, String request, List<Object> response) {
        channel.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.US_ASCII));
        Object in;
        while ((in = channel.readInbound()) != null) {
            assertThat(in).isInstanceOfAny(HttpRequest.class, LastHttpContent.class, FullHttpRequest.class);
            ReferenceCountUtil.release(in);
        }
        for (Object part : response) {
            channel.writeOutbound(part);
        }
        StringBuilder sent = new StringBuilder();
        Object out;
        while ((out = channel.readOutbound()) != null) {
            ByteBuf buf = (ByteBuf) out;
            sent.append(buf.toString(StandardCharsets.US_ASCII));
            buf.release();
        }
        return sent.toString();
    }
}
