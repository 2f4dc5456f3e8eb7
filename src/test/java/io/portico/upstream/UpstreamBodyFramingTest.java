package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A body whose length the head gives is read by the upstream decoder itself (not by Netty's): with its head as one
 * {@code FullHttpResponse} when it came whole in the same read (within the chunk size), else in parts of at most
 * the chunk size ending in a {@link LastPart} that has no trailers object; whatever follows is left for the next
 * response (or counted as leftover), and there is no end at all when the connection closes inside the body.
 */
class UpstreamBodyFramingTest {
    private static final int CHUNK = 4;
    private final EmbeddedChannel ch = new EmbeddedChannel();

    UpstreamBodyFramingTest() {
        UpstreamCodec.addTo(ch.pipeline(), new HttpDecoderConfig().setMaxChunkSize(CHUNK)
                .setAllowDuplicateContentLengths(false).setUseRfc9112TransferEncoding(true), 16);
    }

    @AfterEach
    void noLeak() {
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    private void requests(HttpMethod... methods) {
        for (HttpMethod m : methods) {
            ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, m, "/"));
            ReferenceCountUtil.release(ch.readOutbound());
        }
    }

    /** Sends {@code bytes} in reads of {@code step} bytes and describes what was decoded, releasing it. */
    private List<String> receive(String bytes, int step) {
        List<String> decoded = new ArrayList<>();
        for (int i = 0; i < bytes.length(); i += step) {
            String read = bytes.substring(i, Math.min(bytes.length(), i + step));
            ch.writeInbound(Unpooled.copiedBuffer(read, StandardCharsets.ISO_8859_1));
            for (Object o; (o = ch.readInbound()) != null; ) {
                decoded.add(describe(o));
                ReferenceCountUtil.release(o);
            }
        }
        return decoded;
    }

    private static String describe(Object o) {
        if (o instanceof FullHttpResponse whole) {
            assertThat(whole.decoderResult().isSuccess()).isTrue();
            assertThat(whole.trailingHeaders().isEmpty()).isTrue();
            return "whole " + whole.status().code() + " " + whole.content().toString(StandardCharsets.ISO_8859_1);
        }
        if (o instanceof HttpResponse r) {
            assertThat(r.decoderResult().isSuccess()).as("head decoded").isTrue();
            return "head " + r.status().code();
        }
        HttpContent c = (HttpContent) o;
        assertThat(c.decoderResult().isSuccess()).isTrue();
        String text = c.content().toString(StandardCharsets.ISO_8859_1);
        if (c instanceof LastHttpContent last) {
            assertThat(last.trailingHeaders().isEmpty()).isTrue();
            return (c instanceof LastPart ? "last-part " : "last ") + text;
        }
        return "part " + text;
    }

    @Test
    void aLengthBodyComesInPartsOfTheChunkSizeAndEndsInALastPart() {
        requests(HttpMethod.GET, HttpMethod.GET);
        String two = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        assertThat(receive(two, two.length())).containsExactly(
                "head 200", "part hell", "part o wo", "last-part rld", "whole 200 ok");
        assertThat(UpstreamCodec.hasLeftover(ch.pipeline())).isFalse();
    }

    @Test
    void theSameBodyReadAByteAtATime() {
        requests(HttpMethod.GET, HttpMethod.GET);
        String two = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
                + "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\n\r\nx";
        assertThat(receive(two, 1)).containsExactly(
                "head 200", "part a", "part b", "last-part c", "head 404", "last-part x");
    }

    @Test
    void aBodyThatComesInALaterReadIsAPartAfterTheHead() {
        requests(HttpMethod.GET);
        String head = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n";
        assertThat(receive(head, head.length())).containsExactly("head 200");
        assertThat(receive("ok", 2)).containsExactly("last-part ok");
    }

    @Test
    void bytesBeyondTheLengthAreLeftOverForThePoolToSee() {
        requests(HttpMethod.GET);
        assertThat(receive("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA", 64))
                .containsExactly("whole 200 ok");
        assertThat(UpstreamCodec.hasLeftover(ch.pipeline())).as("desynchronised").isTrue();
    }

    @Test
    void aHeadResponsesLengthIsNotABody() {
        requests(HttpMethod.HEAD, HttpMethod.GET);
        String two = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n" + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz";
        assertThat(receive(two, two.length())).containsExactly("head 200", "last ", "whole 200 z");
    }

    @Test
    void chunkedAndCloseDelimitedBodiesStayNettys() {
        requests(HttpMethod.GET, HttpMethod.GET);
        assertThat(receive("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
                + "HTTP/1.1 200 OK\r\n\r\nuntil close", 256))
                .containsExactly("head 200", "part hi", "last ", "head 200", "part unti", "part l cl", "part ose");
        ch.close();
        Object end = ch.readInbound();
        assertThat(end).isInstanceOf(LastHttpContent.class);
        ReferenceCountUtil.release(end);
    }

    @Test
    void aConnectionClosedInsideTheBodyGivesNoEnd() {
        requests(HttpMethod.GET);
        assertThat(receive("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabcdef", 64))
                .containsExactly("head 200", "part abcd", "part ef");
        ch.close();
        assertThat((Object) ch.readInbound()).as("no end: the exchange sees the close").isNull();
    }
}
