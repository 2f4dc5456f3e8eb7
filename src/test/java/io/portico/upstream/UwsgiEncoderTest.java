package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The uwsgi packet byte by byte, and the ownership of what the encoder is given. */
class UwsgiEncoderTest {
    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(new UwsgiEncoder(methods));

    @Test
    void repeatedFieldsAreOneVariableInTheOrderOfTheirFirstCookiesJoinedBySemicolons() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        head.headers().add("x-forwarded-for", "1.1.1.1").add("Cookie", "a=1").add("Accept", "text/html")
                .add("X-Forwarded-For", "2.2.2.2").add("cookie", "b=2").add("X_Forwarded-for", "3.3.3.3")
                .add("Keep-Alive", "5").add("Transfer-Encoding", "chunked").add("Sec-WebSocket-Key", "k");
        channel.writeOutbound(head);
        ByteBuf packet = channel.readOutbound();
        assertThat(vars(packet)).containsExactly(
                "REQUEST_METHOD=GET", "REQUEST_URI=/", "PATH_INFO=/", "QUERY_STRING=", "CONTENT_TYPE=",
                "CONTENT_LENGTH=", "HTTP_X_FORWARDED_FOR=1.1.1.1, 2.2.2.2, 3.3.3.3", "HTTP_COOKIE=a=1; b=2",
                "HTTP_ACCEPT=text/html", "HTTP_SEC_WEBSOCKET_KEY=k");
        packet.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void theHeaderIsModifier1TheVariablesSizeLittleEndianAndModifier2() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/p%C3%A9?x=1");
        head.headers().add("Host", "h").add("X-Multi", "a").add("X-Multi", "b").add("Connection", "close");
        channel.writeOutbound(CgiParams.builder().set("SERVER_NAME", "s").set("HTTP_X_MULTI", "mine").build(), head);
        ByteBuf packet = channel.readOutbound();
        assertThat(packet.getUnsignedByte(0)).isZero();
        assertThat(packet.getUnsignedShortLE(1)).isEqualTo(packet.readableBytes() - 4);
        assertThat(packet.getUnsignedByte(3)).isZero();
        assertThat(vars(packet)).containsExactly(
                "REQUEST_METHOD=GET", "REQUEST_URI=/p%C3%A9?x=1", "PATH_INFO=/p\u00c3\u00a9", "QUERY_STRING=x=1",
                "CONTENT_TYPE=", "CONTENT_LENGTH=", "SERVER_NAME=s", "HTTP_X_MULTI=mine", "HTTP_HOST=h");
        packet.release();
        assertThat(methods).containsExactly(HttpMethod.GET);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    /**
     * The set's order and replacement, byte for byte: a later value of a name keeps the first one's place, a set
     * past its initial room keeps every name in order, and a derived name the set has (a location's params may
     * name one) is not derived again.
     */
    @Test
    void theSetKeepsItsOrderAReplacedValueItsPlaceAndADerivedNameItHasIsNotDerived() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/a?q");
        head.headers().add("Host", "h");
        CgiParams.Builder b = CgiParams.builder().set("SERVER_NAME", "first");
        List<String> expected = new ArrayList<>(List.of("SERVER_NAME=second"));
        for (int i = 0; i < 20; i++) {
            b.set("V" + i, "v" + i);
            expected.add("V" + i + "=v" + i);
        }
        b.set("SERVER_NAME", "second").set("QUERY_STRING", "mine");
        expected.add("QUERY_STRING=mine");
        channel.writeOutbound(b.build(), head);
        ByteBuf packet = channel.readOutbound();
        List<String> all = new ArrayList<>(List.of("REQUEST_METHOD=GET", "REQUEST_URI=/a?q", "PATH_INFO=/a",
                "CONTENT_TYPE=", "CONTENT_LENGTH="));
        all.addAll(expected);
        all.add("HTTP_HOST=h");
        assertThat(vars(packet)).containsExactlyElementsOf(all);
        packet.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void bodyPartsGoOutAsTheirBuffersAndTrailersAreDropped() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/");
        head.headers().add("Content-Length", "6").add("Content-Type", "text/plain");
        ByteBuf one = Unpooled.copiedBuffer("abc", StandardCharsets.US_ASCII);
        LastHttpContent last = new DefaultLastHttpContent(Unpooled.copiedBuffer("def", StandardCharsets.US_ASCII));
        last.trailingHeaders().add("X-Trailer", "t");
        channel.writeOutbound(head, new DefaultHttpContent(one), last);
        ByteBuf packet = channel.readOutbound();
        assertThat(vars(packet)).contains("CONTENT_LENGTH=6", "CONTENT_TYPE=text/plain");
        packet.release();
        ByteBuf a = channel.readOutbound();
        ByteBuf b = channel.readOutbound();
        assertThat(a.toString(StandardCharsets.US_ASCII) + b.toString(StandardCharsets.US_ASCII)).isEqualTo("abcdef");
        a.release();
        b.release();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aFullRequestGoesOutInOneBufferAndIsConsumed() {
        ByteBuf content = Unpooled.copiedBuffer("body", StandardCharsets.US_ASCII);
        DefaultFullHttpRequest full = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.PUT, "/", content);
        full.headers().add("Content-Length", "4");
        channel.writeOutbound(full);
        ByteBuf out = channel.readOutbound();
        int size = out.getUnsignedShortLE(1);
        assertThat(out.toString(4 + size, 4, StandardCharsets.US_ASCII)).isEqualTo("body");
        out.release();
        assertThat(content.refCnt()).isZero();
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void variablesOver64KiBFailTheWriteReleaseTheHeadAndCloseTheConnection() {
        DefaultFullHttpRequest full = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/",
                Unpooled.copiedBuffer("body", StandardCharsets.US_ASCII));
        full.headers().add("X-Big", "v".repeat(40_000)).add("X-Bigger", "w".repeat(30_000));
        List<Throwable> caught = new ArrayList<>();
        EmbeddedChannel ch = new EmbeddedChannel(new UwsgiEncoder(methods),
                new io.netty.channel.ChannelInboundHandlerAdapter() {
                    @Override
                    public void exceptionCaught(io.netty.channel.ChannelHandlerContext ctx, Throwable cause) {
                        caught.add(cause);
                    }
                });
        ChannelFuture f = ch.writeAndFlush(full);
        assertThat(f.cause()).isInstanceOf(UwsgiRequestTooLargeException.class);
        assertThat(caught).singleElement().isInstanceOf(UwsgiRequestTooLargeException.class);
        assertThat(full.refCnt()).isZero();
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(methods).isEmpty();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void percentDecodingKeepsWhatIsNotAnEncoding() {
        assertThat(CgiEnvironment.percentDecoded("/a%2Fb%41%zz%4")).isEqualTo("/a/bA%zz%4");
        assertThat(CgiEnvironment.percentDecoded("/plain")).isEqualTo("/plain");
    }

    /** The variables of a packet as NAME=value, in order (latin-1: one char per byte). */
    private static List<String> vars(ByteBuf packet) {
        List<String> out = new ArrayList<>();
        int end = 4 + packet.getUnsignedShortLE(1);
        int i = 4;
        while (i < end) {
            int k = packet.getUnsignedShortLE(i);
            String name = packet.toString(i + 2, k, StandardCharsets.ISO_8859_1);
            i += 2 + k;
            int v = packet.getUnsignedShortLE(i);
            String value = packet.toString(i + 2, v, StandardCharsets.ISO_8859_1);
            i += 2 + v;
            out.add(name + "=" + value);
        }
        assertThat(i).isEqualTo(end);
        return out;
    }
}
