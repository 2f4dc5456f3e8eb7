package io.portico.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
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
 * <p>Like the server's codec, the decoder and the encoder are two pipeline handlers ({@value #DECODER},
 * {@value #ENCODER}) rather than one {@code CombinedChannelDuplexHandler}, which would relay every read, write and
 * flush of a proxied exchange through a delegating context.
 */
final class UpstreamCodec {
    static final String DECODER = "http";
    static final String ENCODER = "http-encoder";

    private UpstreamCodec() {}

    static void addTo(ChannelPipeline p, HttpDecoderConfig config) {
        ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
        p.addLast(DECODER, new Decoder(config, methods));
        p.addLast(ENCODER, new Encoder(methods));
    }

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
        return decoder == null || decoder.leftover() > 0;
    }

    static final class Encoder extends HttpRequestEncoder {
        private final ArrayDeque<HttpMethod> methods;

        Encoder(ArrayDeque<HttpMethod> methods) {
            this.methods = methods;
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) throws Exception {
            if (msg instanceof HttpRequest request) {
                methods.add(request.method());
            }
            super.encode(ctx, msg, out);
        }
    }

    static final class Decoder extends HttpResponseDecoder {
        private final ArrayDeque<HttpMethod> methods;

        Decoder(HttpDecoderConfig config, ArrayDeque<HttpMethod> methods) {
            super(config);
            this.methods = methods;
        }

        int leftover() {
            return actualReadableBytes();
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpMessage msg) {
            int code = ((HttpResponse) msg).status().code();
            if (code >= 100 && code < 200) {
                return super.isContentAlwaysEmpty(msg); // interim: the final response is still to come
            }
            HttpMethod method = methods.poll();
            return HttpMethod.HEAD.equals(method) || super.isContentAlwaysEmpty(msg);
        }
    }
}
