package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The upstream decoder's strict rules, byte for byte: what it refuses ends as a failed decoder result on the head
 * (the exchange's 502); what it accepts decodes as Netty would. The field limits are counted as documented: the
 * bytes of the field lines without their line endings, and the number of fields.
 */
class UpstreamCodecTest {
    private static final int MAX_SIZE = 64;
    private static final int MAX_FIELDS = 3;

    /** The head decoded from {@code response} (sent after a GET), and whether its decoding succeeded. */
    private static boolean decodes(String response) {
        EmbeddedChannel ch = new EmbeddedChannel();
        UpstreamCodec.addTo(ch.pipeline(), new HttpDecoderConfig().setMaxHeaderSize(MAX_SIZE)
                .setAllowDuplicateContentLengths(false).setUseRfc9112TransferEncoding(true), MAX_FIELDS);
        ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        ReferenceCountUtil.release(ch.readOutbound());
        ch.writeInbound(Unpooled.copiedBuffer(response, StandardCharsets.ISO_8859_1));
        List<Object> in = new ArrayList<>();
        for (Object o; (o = ch.readInbound()) != null; ) {
            in.add(o);
        }
        boolean ok = !in.isEmpty() && in.get(0) instanceof HttpResponse head && head.decoderResult().isSuccess()
                && in.stream().allMatch(o -> !(o instanceof HttpContent c) || c.decoderResult().isSuccess())
                && in.get(in.size() - 1) instanceof LastHttpContent;
        in.forEach(ReferenceCountUtil::release);
        assertThat(ch.finishAndReleaseAll()).isFalse();
        return ok;
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\ntransfer-encoding:  chunked \r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 204 No Content\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",
    })
    void accepts(String response) {
        assertThat(decodes(response)).as(response).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "HTTP/2.0 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.2 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "http/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 0200 OK\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length\t: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nX-A b: 1\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\n Content-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\n: empty name\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-LENGTH: 6\r\n\r\nhello!",
        "HTTP/1.0 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        "HTTP/1.0 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 204 No Content\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
    })
    void refuses(String response) {
        assertThat(decodes(response)).as(response).isFalse();
    }

    /** The size limit counts the field lines' bytes, line endings not counted: "X: " + n + "Content-Length: 0". */
    @org.junit.jupiter.api.Test
    void theSizeLimitCountsFieldLineBytesWithoutLineEndings() {
        int n = MAX_SIZE - "X: ".length() - "Content-Length: 0".length();
        assertThat(decodes("HTTP/1.1 200 OK\r\nX: " + "x".repeat(n) + "\r\nContent-Length: 0\r\n\r\n")).isTrue();
        assertThat(decodes("HTTP/1.1 200 OK\r\nX: " + "x".repeat(n + 1) + "\r\nContent-Length: 0\r\n\r\n"))
                .isFalse();
    }
}
