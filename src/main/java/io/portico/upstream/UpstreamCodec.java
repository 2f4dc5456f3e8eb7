package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.portico.http1.FieldList;
import io.portico.http1.FieldNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The HTTP/1.1 client codec of an upstream connection: Netty's {@code HttpClientCodec} minus CONNECT, plus the
 * one thing a keep-alive pool must know and that codec hides: whether bytes beyond the end of the response are
 * waiting in the decoder ({@link #hasLeftover}). An upstream that sends more than its Content-Length (or
 * anything after the response) has desynchronised; reusing the connection would hand those bytes to the next
 * request as (part of) its response. Also, unlike {@code HttpClientCodec}, an interim 103 does not consume the
 * request method, so the final response to a HEAD still has no body.
 *
 * <p>The decoder is strict where Netty's is lenient with responses ({@link Decoder}): what it refuses becomes a
 * failed decoder result, which the exchange answers with 502 and a closed connection.
 *
 * <p>Like the server's codec, the decoder and the encoder are two pipeline handlers ({@value #DECODER},
 * {@value #ENCODER}) rather than one {@code CombinedChannelDuplexHandler}, which would relay every read, write and
 * flush of a proxied exchange through a delegating context.
 */
final class UpstreamCodec {
    static final String DECODER = "http";
    static final String ENCODER = "http-encoder";

    private UpstreamCodec() {}

    /** @param maxFields header fields a response may have at most */
    static void addTo(ChannelPipeline p, HttpDecoderConfig config, int maxFields) {
        ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
        p.addLast(DECODER, new Decoder(config, maxFields, methods));
        p.addLast(ENCODER, new Encoder(methods));
    }

    /**
     * The headers of an upstream response ({@link FieldList}), validated as Netty's default factory validates
     * them. Set in the decoder config after {@code setValidateHeaders}, which replaces the factory.
     */
    static final HttpHeadersFactory RESPONSE_HEADERS = FieldList.factory(DefaultHttpHeadersFactory.headersFactory());

    /** For a protocol switch: the connection stops speaking HTTP. */
    static void removeFrom(ChannelPipeline p) {
        p.remove(DECODER);
        p.remove(ENCODER);
    }

    /**
     * Bytes received but not yet decoded: at the end of a response, the sign of a desynchronised upstream. A
     * pipeline without the codec (switched protocols) counts as desynchronised.
     */
    static boolean hasLeftover(ChannelPipeline p) {
        Decoder decoder = p.get(Decoder.class);
        if (decoder == null) {
            FastCgiDecoder fastcgi = p.get(FastCgiDecoder.class);
            return fastcgi == null || fastcgi.leftover() > 0;
        }
        return decoder.leftover() > 0;
    }

    /** Netty's request encoder, noting each head's method, and letting a {@link HeadLines} head write its fields. */
    static final class Encoder extends HttpRequestEncoder {
        private final ArrayDeque<HttpMethod> methods;
        /** The head being encoded when it writes its own header lines. */
        private HeadLines lines;

        Encoder(ArrayDeque<HttpMethod> methods) {
            this.methods = methods;
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) throws Exception {
            if (msg instanceof HttpRequest request) {
                methods.add(request.method());
                lines = msg instanceof HeadLines l ? l : null;
                try {
                    super.encode(ctx, msg, out);
                } finally {
                    lines = null;
                }
                return;
            }
            super.encode(ctx, msg, out);
        }

        @Override
        protected void encodeHeaders(HttpHeaders headers, ByteBuf buf) {
            if (lines != null) {
                lines.writeHeaderLines(buf);
            } else {
                super.encodeHeaders(headers, buf);
            }
        }
    }

    /**
     * Netty's response decoder (which already refuses a Content-Length list or a second differing value on HTTP/1.1,
     * Content-Length with Transfer-Encoding, Transfer-Encoding on HTTP/1.0, control characters), made as strict as
     * nginx and HAProxy are with upstream responses:
     * <ul>
     *   <li>the version is exactly {@code HTTP/1.1} or {@code HTTP/1.0} (Netty takes any {@code NAME/d.d}, and
     *       upper-cases it), and the status exactly three digits;</li>
     *   <li>no whitespace between a field name and its colon, and none before the first field (Netty drops it
     *       from responses, so {@code Content-Length : 5} would frame the body); RFC 9112 5.1 lets a proxy strip
     *       it instead, nginx answers 502 and so do we;</li>
     *   <li>at most one {@code Content-Length} field and one {@code Transfer-Encoding} field, even with equal
     *       values (Netty merges equal ones, and takes the first of an HTTP/1.0 response's);</li>
     *   <li>{@code Transfer-Encoding} exactly {@code chunked} (anything else would have the body read to the
     *       close and relayed with its coding undone by nobody);</li>
     *   <li>at most {@code maxFields} fields in the head.</li>
     * </ul>
     * The field checks run on the name bytes Netty is about to turn into a name: a length comparison per field,
     * no allocation.
     *
     * <p>A body whose length the head gives is read here rather than by Netty ({@link #takeBody}): Netty ends it
     * with a {@code DefaultLastHttpContent}, which makes a trailers object (four objects, about 200 bytes) for a
     * body that cannot have trailers; {@link LastPart} has none, and a body that came whole with its head goes up
     * with it as one {@code FullHttpResponse}. The parts are the same slices Netty would make, at most
     * {@code maxChunkSize} each, and a connection closed before the last one ends with no last part, as with
     * Netty.
     */
    static final class Decoder extends HttpResponseDecoder {
        private static final byte[] CONTENT_LENGTH = "content-length".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] TRANSFER_ENCODING = "transfer-encoding".getBytes(StandardCharsets.US_ASCII);

        private final ArrayDeque<HttpMethod> methods;
        private final int maxFields;
        private final int maxChunkSize;
        private final boolean echoesHttp2;
        /** In a response head (not its trailers): its fields are counted. */
        private boolean inHead;
        /** The head just decoded may have a body (Netty asked {@link #isContentAlwaysEmpty} and was told no). */
        private boolean mayHaveBody;
        /** Bytes of a Content-Length body still to read here; 0 when Netty is decoding. */
        private long bodyLeft;
        private int fields;
        private int contentLengths;
        private int transferEncodings;

        Decoder(HttpDecoderConfig config, int maxFields, ArrayDeque<HttpMethod> methods) {
            this(config, maxFields, methods, false);
        }

        /**
         * @param echoesHttp2 whether the upstream may answer with the version Portico gave it as the client's
         *     ({@code SERVER_PROTOCOL = HTTP/2.0}, which uWSGI writes back in its status line)
         */
        Decoder(HttpDecoderConfig config, int maxFields, ArrayDeque<HttpMethod> methods, boolean echoesHttp2) {
            super(config);
            this.echoesHttp2 = echoesHttp2;
            this.maxFields = maxFields;
            this.maxChunkSize = config.getMaxChunkSize();
            this.methods = methods;
        }

        int leftover() {
            return actualReadableBytes();
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
            if (bodyLeft > 0) {
                readBody(in, out);
                return;
            }
            int before = out.size();
            mayHaveBody = false;
            super.decode(ctx, in, out);
            if (mayHaveBody && out.size() == before + 1 && out.get(before) instanceof HttpResponse head) {
                takeBody(head, in, out, before);
            }
        }

        /**
         * Called with a final response's head that Netty emitted alone (at {@code out[at]}), its body to follow: when
         * the head gives the length (a positive Content-Length, no Transfer-Encoding), the body is read here, and
         * Netty is told to start afresh at the next head ({@link #reset}, which it does on its next call, after the
         * body). Netty has validated the value by now (digits only, one value). A body that came whole with its
         * head, within the chunk size, goes up with it as one {@code FullHttpResponse}, the message the client's
         * encoder takes (a small answer costs one message, not a head, a last part and their join in the relay).
         */
        private void takeBody(HttpResponse head, ByteBuf in, List<Object> out, int at) {
            if (!head.decoderResult().isSuccess() || transferEncodings > 0 || contentLengths != 1
                    || head.status().code() < 200) {
                return;
            }
            long length = HttpUtil.getContentLength(head, -1L);
            if (length <= 0) {
                return;
            }
            reset();
            if (length <= in.readableBytes() && length <= maxChunkSize) {
                out.set(at, new DefaultFullHttpResponse(head.protocolVersion(), head.status(),
                        in.readRetainedSlice((int) length), head.headers(), EmptyHttpHeaders.INSTANCE));
            } else {
                bodyLeft = length;
            }
        }

        private void readBody(ByteBuf in, List<Object> out) {
            int n = (int) Math.min(Math.min(in.readableBytes(), maxChunkSize), bodyLeft);
            if (n == 0) {
                return; // an empty part would read as the end
            }
            ByteBuf content = in.readRetainedSlice(n);
            bodyLeft -= n;
            out.add(bodyLeft == 0 ? new LastPart(content) : new DefaultHttpContent(content));
        }

        @Override
        protected HttpMessage createMessage(String[] initialLine) {
            String version = initialLine[0];
            if (echoesHttp2 && version.equals("HTTP/2.0")) {
                // An HTTP/2 client's version, echoed: the bytes that follow are HTTP/1.1's (as nginx, which reads
                // any HTTP/x.y status line from uwsgi, takes them).
                initialLine[0] = "HTTP/1.1";
            } else if (!version.equals("HTTP/1.1") && !version.equals("HTTP/1.0")) {
                throw new MalformedResponseException("version " + printable(version)
                        + " (expected: HTTP/1.1 or HTTP/1.0)");
            }
            if (initialLine[1].length() != 3) {
                throw new MalformedResponseException("status " + printable(initialLine[1])
                        + " (expected: three digits)");
            }
            inHead = true;
            fields = 0;
            contentLengths = 0;
            transferEncodings = 0;
            return super.createMessage(initialLine);
        }

        @Override
        protected AsciiString splitHeaderName(byte[] line, int start, int length) {
            // Netty ends a response's field name at whitespace and then skips to the colon; a strict peer does not.
            if (length == 0 || line[start + length] != ':') {
                throw new MalformedResponseException("whitespace or nothing before a header field's colon");
            }
            if (inHead) {
                if (++fields > maxFields) {
                    throw new MalformedResponseException("more than " + maxFields + " header fields");
                }
                if (length == CONTENT_LENGTH.length && nameIs(line, start, CONTENT_LENGTH)
                        && ++contentLengths > 1) {
                    throw new MalformedResponseException("more than one Content-Length field");
                }
                if (length == TRANSFER_ENCODING.length && nameIs(line, start, TRANSFER_ENCODING)
                        && ++transferEncodings > 1) {
                    throw new MalformedResponseException("more than one Transfer-Encoding field");
                }
            }
            return FieldNames.of(line, start, length);
        }

        // The status line's words: shared Strings for the usual ones instead of three copies per response.

        @Override
        protected String splitFirstWordInitialLine(byte[] line, int start, int length) {
            String shared = StatusLineWords.version(line, start, length);
            return shared != null ? shared : super.splitFirstWordInitialLine(line, start, length);
        }

        @Override
        protected String splitSecondWordInitialLine(byte[] line, int start, int length) {
            String shared = StatusLineWords.status(line, start, length);
            return shared != null ? shared : super.splitSecondWordInitialLine(line, start, length);
        }

        @Override
        protected String splitThirdWordInitialLine(byte[] line, int start, int length) {
            String shared = StatusLineWords.reason(line, start, length);
            return shared != null ? shared : super.splitThirdWordInitialLine(line, start, length);
        }

        /** Case-insensitive comparison with a lower-case name of the same length. */
        private static boolean nameIs(byte[] line, int start, byte[] lowerName) {
            for (int i = 0; i < lowerName.length; i++) {
                int b = line[start + i];
                if (b != lowerName[i] && (b | 0x20) != lowerName[i]) {
                    return false;
                }
            }
            return true;
        }

        /** Called by Netty once per head, after its fields are parsed and before the body's framing is chosen. */
        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            inHead = false;
            if (transferEncodings > 0) {
                checkTransferEncoding(msg);
            }
            int code = ((HttpResponse) msg).status().code();
            if (code >= 100 && code < 200) {
                return super.isContentAlwaysEmpty(msg); // interim: the final response is still to come
            }
            HttpMethod method = methods.poll();
            boolean empty = HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
            mayHaveBody = !empty;
            return empty;
        }

        private static void checkTransferEncoding(HttpMessage msg) {
            if (msg.protocolVersion() != HttpVersion.HTTP_1_1) {
                throw new MalformedResponseException("Transfer-Encoding in an HTTP/1.0 response");
            }
            String coding = msg.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
            if (!"chunked".equals(coding)) {
                throw new MalformedResponseException("Transfer-Encoding " + printable(coding)
                        + " (expected: chunked)");
            }
        }

        /** At most 64 characters of what the upstream sent, for the log: no control bytes. */
        private static String printable(String s) {
            StringBuilder b = new StringBuilder(Math.min(s.length(), 64) + 2).append('\'');
            for (int i = 0; i < s.length() && i < 64; i++) {
                char c = s.charAt(i);
                b.append(c < 0x20 || c > 0x7e ? '?' : c);
            }
            return b.append('\'').toString();
        }
    }
}
