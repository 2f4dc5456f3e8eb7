package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.http1.FieldList;
import io.portico.http1.FieldNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** FastCGI records both ways, the strictness of the response decoder, and ownership. */
class FastCgiCodecTest {
    private final ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
    private final EmbeddedChannel decoder = new EmbeddedChannel(new FastCgiDecoder(methods, 1024, 10, null));

    @Test
    void aRequestIsBeginRequestWithKeepConnParamsAndStdin() {
        EmbeddedChannel ch = new EmbeddedChannel(new FastCgiEncoder(methods, true));
        DefaultHttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/a.php?q=1");
        head.headers().add("Content-Length", "70000");
        ByteBuf body = Unpooled.wrappedBuffer(new byte[70_000]);
        ch.writeOutbound(CgiParams.builder().set("SCRIPT_FILENAME", "/srv/a.php").build(), head,
                new DefaultHttpContent(body), LastHttpContent.EMPTY_LAST_CONTENT);
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            all.writeBytes(b);
            b.release();
        }
        List<int[]> records = new ArrayList<>(); // type, length
        List<String> params = new ArrayList<>();
        while (all.isReadable()) {
            assertThat(all.readUnsignedByte()).isEqualTo((short) 1);
            int type = all.readUnsignedByte();
            assertThat(all.readUnsignedShort()).isEqualTo(1);
            int length = all.readUnsignedShort();
            int padding = all.readUnsignedByte();
            all.skipBytes(1);
            ByteBuf content = all.readSlice(length);
            all.skipBytes(padding);
            records.add(new int[] {type, length});
            if (type == FastCgiRecords.BEGIN_REQUEST) {
                assertThat(content.getUnsignedShort(0)).isEqualTo(FastCgiRecords.RESPONDER);
                assertThat(content.getUnsignedByte(2)).isEqualTo((short) FastCgiRecords.KEEP_CONN);
            }
            while (type == FastCgiRecords.PARAMS && content.isReadable()) {
                int n = len(content);
                int v = len(content);
                params.add(content.readCharSequence(n, StandardCharsets.ISO_8859_1) + "="
                        + content.readCharSequence(v, StandardCharsets.ISO_8859_1));
            }
        }
        all.release();
        assertThat(records).extracting(r -> r[0] + ":" + r[1]).containsExactly("1:8",
                "4:" + records.get(1)[1], "4:0", "5:65535", "5:4465", "5:0");
        assertThat(params).contains("REQUEST_METHOD=POST", "QUERY_STRING=q=1", "CONTENT_LENGTH=70000",
                "SCRIPT_FILENAME=/srv/a.php");
        assertThat(body.refCnt()).isZero();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void variablesOver64KiBAreCutIntoRecordsAndAWideCharIsSentAsUtf8() {
        EmbeddedChannel ch = new EmbeddedChannel(new FastCgiEncoder(methods, false));
        DefaultFullHttpRequest head = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        String big = "a".repeat(70_000);
        head.headers().add("X-Big", big);
        ch.writeOutbound(CgiParams.builder().set("APP", "caf\u00e9 \u20ac").build(), head);
        ByteBuf out = ch.readOutbound();
        assertThat((Object) ch.readOutbound()).as("a GET is one buffer").isNull();
        List<String> records = new ArrayList<>();
        ByteBuf params = Unpooled.buffer();
        while (out.isReadable()) {
            out.skipBytes(1);
            int type = out.readUnsignedByte();
            out.skipBytes(2);
            int length = out.readUnsignedShort();
            out.skipBytes(2);
            records.add(type + ":" + length);
            ByteBuf content = out.readSlice(length);
            if (type == FastCgiRecords.PARAMS) {
                params.writeBytes(content);
            }
        }
        out.release();
        assertThat(records).containsExactly("1:8", "4:65535", "4:" + (records.get(2).substring(2)), "4:0", "5:0");
        List<String> pairs = new ArrayList<>();
        while (params.isReadable()) {
            int n = len(params);
            int v = len(params);
            pairs.add(params.readCharSequence(n, StandardCharsets.UTF_8) + "="
                    + params.readCharSequence(v, StandardCharsets.UTF_8));
        }
        params.release();
        assertThat(pairs).contains("APP=caf\u00e9 \u20ac", "HTTP_X_BIG=" + big);
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aFullRequestEndsItsStdinAtOnceAndNoKeepConnWhenNotPooled() {
        EmbeddedChannel ch = new EmbeddedChannel(new FastCgiEncoder(methods, false));
        ch.writeOutbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/"));
        ByteBuf out = ch.readOutbound();
        assertThat(out.getUnsignedByte(8 + 2)).isZero(); // BEGIN_REQUEST flags
        int end = out.writerIndex();
        assertThat(out.getUnsignedByte(end - 8 + 1)).isEqualTo((short) FastCgiRecords.STDIN);
        assertThat(out.getUnsignedShort(end - 8 + 4)).isZero();
        out.release();
        assertThat(ch.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aResponseIsItsCgiHeadItsStdoutAndItsEnd() {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(record(FastCgiRecords.STDERR, "warning"),
                record(FastCgiRecords.STDOUT, "Status: 404 Not Found\r\nContent-Type: text/plain\r\n"
                        + "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 5\r\n\r\nhe"),
                record(FastCgiRecords.STDOUT, "llo"), end(0));
        HttpResponse r = decoder.readInbound();
        assertThat(r.decoderResult().isSuccess()).isTrue();
        assertThat(r.status().code()).isEqualTo(404);
        assertThat(r.status().reasonPhrase()).isEqualTo("Not Found");
        assertThat(r.headers().getAll("Set-Cookie")).containsExactly("a=1", "b=2");
        assertThat(r.headers().contains("Status")).isFalse();
        assertThat(body()).isEqualTo("hello");
        assertThat(methods).isEmpty();
        assertThat(((FastCgiDecoder) decoder.pipeline().first()).leftover()).isZero();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    /**
     * The head is a FieldList, as an HTTP upstream's, read from direct memory as the native transports receive it:
     * common names are the shared instances, in the spelling received; CGI's fields are known in any letter case.
     */
    @Test
    void theHeadIsAFieldListWithTheSharedCommonNames() {
        methods.add(HttpMethod.GET);
        ByteBuf direct = Unpooled.directBuffer();
        direct.writeBytes(Unpooled.wrappedBuffer(record(FastCgiRecords.STDOUT,
                "status: 201\r\ncontent-type: text/plain\r\nX-Odd: 1\r\ncontent-length: 2\r\n\r\nok"), end(0)));
        decoder.writeInbound(direct);
        HttpResponse r = decoder.readInbound();
        assertThat(r.decoderResult().isSuccess()).isTrue();
        assertThat(r.status().code()).isEqualTo(201);
        assertThat(r.headers()).isInstanceOf(FieldList.class);
        List<CharSequence> names = new ArrayList<>();
        r.headers().iteratorCharSequence().forEachRemaining(field -> names.add(field.getKey()));
        assertThat(names).extracting(CharSequence::toString).containsExactly("content-type", "X-Odd", "content-length");
        byte[] contentType = "content-type".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(names.get(0)).isSameAs(FieldNames.of(contentType, 0, contentType.length));
        assertThat(r.headers().get("Content-Length")).isEqualTo("2");
        assertThat(body()).isEqualTo("ok");
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aHeadSplitOverRecordsIsGatheredFirst() {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(record(FastCgiRecords.STDOUT, "Status: 201 Made\r\nX-A:  padded \t\r"),
                record(FastCgiRecords.STDOUT, "\nContent-Length: 5\r\n\r"),
                record(FastCgiRecords.STDOUT, "\nhello"), end(0));
        HttpResponse r = decoder.readInbound();
        assertThat(r.decoderResult().isSuccess()).isTrue();
        assertThat(r.status().code()).isEqualTo(201);
        assertThat(r.status().reasonPhrase()).isEqualTo("Made");
        assertThat(r.headers().get("X-A")).isEqualTo("padded");
        assertThat(body()).isEqualTo("hello");
        assertThat(methods).isEmpty();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aBodyPartReadWithEndRequestIsTheLastMessageItself() {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(Unpooled.wrappedBuffer(
                record(FastCgiRecords.STDOUT, "Content-Type: text/plain\r\n\r\nhe"),
                record(FastCgiRecords.STDOUT, "llo"), end(0)));
        HttpResponse r = decoder.readInbound();
        assertThat(r.status().code()).isEqualTo(200);
        HttpContent he = decoder.readInbound();
        assertThat(he).isNotInstanceOf(LastHttpContent.class);
        assertThat(he.content().toString(StandardCharsets.ISO_8859_1)).isEqualTo("he");
        he.release();
        LastHttpContent last = decoder.readInbound();
        assertThat(last.content().toString(StandardCharsets.ISO_8859_1)).isEqualTo("llo");
        last.release();
        assertThat((Object) decoder.readInbound()).isNull();
        assertThat(methods).isEmpty();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void noStatusIs200AndALocationWithoutOne302() {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(record(FastCgiRecords.STDOUT, "Location: /x\n\n"), end(0));
        HttpResponse r = decoder.readInbound();
        assertThat(r.status().code()).isEqualTo(302);
        assertThat(body()).isEmpty();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aHeadResponseHasNoBody() {
        methods.add(HttpMethod.HEAD);
        decoder.writeInbound(record(FastCgiRecords.STDOUT, "Content-Length: 5\r\n\r\nhello"), end(0));
        HttpResponse r = decoder.readInbound();
        assertThat(r.status().code()).isEqualTo(200);
        assertThat(body()).isEmpty();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "Status: 99 Odd\r\n\r\n", "Status: 2000\r\n\r\n", "Status: 600 X\r\n\r\n", "Status: 200\r\nStatus: 200\r\n\r\n",
        "Status: 20a\r\n\r\n", "Status: 200OK\r\n\r\n", ": v\r\n\r\n", "Content-Length: 1a\r\n\r\nx",
        "Content-Type : text/html\r\n\r\n", " X: y\r\n\r\n", "no colon\r\n\r\n", "X: a\u0001b\r\n\r\n",
        "Transfer-Encoding: chunked\r\n\r\n", "Content-Length: 1\r\nContent-Length: 1\r\n\r\nx",
        "Content-Length: -1\r\n\r\n", "Content-Length: 2\r\n\r\nabc", "Content-Length: 4\r\n\r\nabc",
        "A: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\nG: 1\r\nH: 1\r\nI: 1\r\nJ: 1\r\nK: 1\r\n\r\n"})
    void malformedResponsesFailAndTheConnectionIsNeverReused(String stdout) {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(record(FastCgiRecords.STDOUT, stdout), end(0));
        assertThat(failed()).as(stdout).isTrue();
        assertThat(((FastCgiDecoder) decoder.pipeline().first()).leftover()).isPositive();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void badRecordsFail() {
        methods.add(HttpMethod.GET);
        ByteBuf other = record(FastCgiRecords.STDOUT, "X: 1\r\n\r\n");
        other.setShort(2, 2); // request id 2
        decoder.writeInbound(other);
        assertThat(failed()).isTrue();
        assertThat(decoder.finishAndReleaseAll()).isFalse();

        EmbeddedChannel again = new EmbeddedChannel(new FastCgiDecoder(methods, 1024, 10, null));
        again.writeInbound(end(0)); // END_REQUEST before any head
        HttpObject r = again.readInbound();
        assertThat(r.decoderResult().isFailure()).isTrue();
        ReferenceCountUtil.release(r);
        assertThat(again.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aHeadOverTheLimitFails() {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(record(FastCgiRecords.STDOUT, "X: " + "v".repeat(60_000)));
        assertThat(failed()).isTrue();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    @Test
    void bytesAfterEndRequestAreLeftOverNotDecoded() {
        methods.add(HttpMethod.GET);
        decoder.writeInbound(Unpooled.wrappedBuffer(record(FastCgiRecords.STDOUT, "Content-Length: 0\r\n\r\n"),
                end(0), record(FastCgiRecords.STDOUT, "Status: 200\r\n\r\nsmuggled")));
        HttpResponse r = decoder.readInbound();
        assertThat(r.status().code()).isEqualTo(200);
        assertThat((Object) decoder.readInbound()).isInstanceOf(LastHttpContent.class);
        assertThat((Object) decoder.readInbound()).isNull();
        assertThat(((FastCgiDecoder) decoder.pipeline().first()).leftover()).isPositive();
        assertThat(decoder.finishAndReleaseAll()).isFalse();
    }

    /** Whether the decoder produced a failed message (the rest released). */
    private boolean failed() {
        boolean failed = false;
        for (Object m; (m = decoder.readInbound()) != null; ) {
            failed |= ((HttpObject) m).decoderResult().isFailure();
            ReferenceCountUtil.release(m);
        }
        return failed;
    }

    private String body() {
        StringBuilder b = new StringBuilder();
        for (Object m; (m = decoder.readInbound()) != null; ) {
            assertThat(((HttpObject) m).decoderResult().isSuccess()).isTrue();
            if (m instanceof HttpContent c) {
                b.append(c.content().toString(StandardCharsets.ISO_8859_1));
            }
            ReferenceCountUtil.release(m);
        }
        return b.toString();
    }

    private static int len(ByteBuf b) {
        int first = b.readUnsignedByte();
        return first < 128 ? first : ((first & 0x7f) << 24) | b.readUnsignedMedium();
    }

    private static ByteBuf record(int type, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf b = Unpooled.buffer();
        FastCgiRecords.header(b, type, bytes.length);
        b.setByte(6, 3); // padding, as PHP-FPM pads to 8
        b.writeBytes(bytes).writeZero(3);
        return b;
    }

    private static ByteBuf end(int protocolStatus) {
        ByteBuf b = Unpooled.buffer();
        FastCgiRecords.header(b, FastCgiRecords.END_REQUEST, 8);
        b.writeInt(0).writeByte(protocolStatus).writeZero(3);
        return b;
    }
}
