package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.portico.connection.ClientPipeline;
import io.portico.http1.RequestDecoder;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The client's HTTP/1 codec: Portico's own strict request decoder ({@link RequestDecoder}: bounds, syntax and
 * framing rules in one parser) and Netty's response encoder. Like HttpServerCodec it remembers request methods so
 * that a response to HEAD carries no body: the decoder adds each request's, the encoder polls them.
 *
 * <p>The decoder and the encoder are two pipeline handlers ({@value ClientPipeline#DECODER},
 * {@value ClientPipeline#ENCODER}) rather than one {@code CombinedChannelDuplexHandler}: each event then skips the
 * half that does not handle it, where the combined handler would relay every read, write and flush through a
 * delegating context.
 */
final class ServerCodec {
    /** An error page up to this size is copied after a repeated head: one buffer, one send. */
    private static final int COPIED_BODY = 4096;
    private static final short CRLF = ('\r' << 8) | '\n';

    private ServerCodec() {}

    static void addTo(ChannelPipeline p, int maxRequestLine, int maxHeaderSize) {
        ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
        p.addLast(ClientPipeline.DECODER, new RequestDecoder(maxRequestLine, maxHeaderSize, methods));
        p.addLast(ClientPipeline.ENCODER, new ResponseEncoder(methods));
    }

    /**
     * Netty's response encoder, with the request method at hand (a response to HEAD has no body) and a whole
     * response's head that repeats on a connection (an error's; a 200's, kept apart) copied instead of encoded
     * again ({@link RepeatedHead}).
     */
    static final class ResponseEncoder extends HttpResponseEncoder {
        /**
         * After this many 200s in a row whose head was not the one kept, a connection stops comparing (its
         * responses carry heads that differ, a proxied app's cookies or ids) and tries again every 64th.
         */
        private static final int OK_MISSES = 8;

        private final ArrayDeque<HttpMethod> methods;
        /** Made on the first error response: a connection that gets none keeps nothing. */
        private RepeatedHead repeated;
        /**
         * The same for whole 200 responses: a keep-alive connection asking for one file again and again (a page's
         * poller, a load test) gets the same head each time within a second, and a proxied app's whole answers
         * often do.
         */
        private RepeatedHead repeatedOk;
        private int okMisses;
        private int okSkipped;
        private HttpMethod current;
        /** A response head went out and its end has not: Netty's encoder, not a kept head, answers what comes. */
        private boolean open;
        /** Set while a response whose head is kept (an error, a 200) is encoded: from where it is written. */
        private boolean keepHead;
        private ByteBuf headBuf;
        private int headFrom;
        private int headTo;

        ResponseEncoder(ArrayDeque<HttpMethod> methods) {
            this.methods = methods;
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, Object msg, List<Object> out) throws Exception {
            if (msg instanceof HttpResponse response && response.status().code() >= 200) {
                current = methods.poll();
                if (msg instanceof FullHttpResponse full) {
                    int code = response.status().code();
                    if (code >= 400 && !open) {
                        encodeError(ctx, full, out);
                        return;
                    }
                    if (code == 200 && !open && tryOk()) {
                        encodeOk(ctx, full, out);
                        return;
                    }
                } else {
                    open = true;
                }
            } else if (msg instanceof LastHttpContent) {
                open = false;
            }
            super.encode(ctx, msg, out);
        }

        /** Whether this 200 is compared with the kept one: always, unless the last ones kept missing. */
        private boolean tryOk() {
            return okMisses < OK_MISSES || (++okSkipped & 63) == 0;
        }

        private void encodeOk(ChannelHandlerContext ctx, FullHttpResponse response, List<Object> out)
                throws Exception {
            if (repeatedOk == null) {
                repeatedOk = new RepeatedHead();
            }
            if (repeatedOk.matches(response)) {
                okMisses = 0;
                writeKept(ctx, repeatedOk, response, out);
            } else {
                okMisses = Math.min(okMisses + 1, OK_MISSES);
                encodeAndKeep(ctx, repeatedOk, response, out);
            }
        }

        private void encodeError(ChannelHandlerContext ctx, FullHttpResponse response, List<Object> out)
                throws Exception {
            if (repeated == null) {
                repeated = new RepeatedHead();
            }
            if (repeated.matches(response)) {
                writeKept(ctx, repeated, response, out);
            } else {
                encodeAndKeep(ctx, repeated, response, out);
            }
        }

        /** The kept head's bytes, then the body: copied behind it when small (one buffer, one send), else as is. */
        private void writeKept(ChannelHandlerContext ctx, RepeatedHead repeated, FullHttpResponse response,
                List<Object> out) {
            try {
                ByteBuf content = response.content();
                int n = HttpMethod.HEAD.equals(current) ? 0 : content.readableBytes();
                int copied = n <= COPIED_BODY ? n : 0;
                ByteBuf buf = ctx.alloc().buffer(repeated.length() + copied);
                repeated.writeTo(buf);
                // Read from the body into buf rather than buf.writeBytes(content): Netty's adaptive buffer writes
                // another buffer through a ByteBuffer view of it (one object per response on the proxy path, whose
                // body is a slice of the upstream's read); reading copies memory to memory.
                content.getBytes(content.readerIndex(), buf, buf.writerIndex(), copied);
                buf.writerIndex(buf.writerIndex() + copied);
                out.add(buf);
                if (copied < n) {
                    out.add(content.retain());
                }
            } finally {
                response.release();
            }
        }

        /** Netty's encoding, keeping the head it wrote for the next response to compare with. */
        private void encodeAndKeep(ChannelHandlerContext ctx, RepeatedHead repeated, FullHttpResponse response,
                List<Object> out) throws Exception {
            keepHead = true;
            try {
                super.encode(ctx, response, out); // releases the response; its headers stay readable
                if (headBuf != null && headTo <= headBuf.writerIndex() && headBuf.getShort(headTo - 2) == CRLF
                        && !HttpUtil.isTransferEncodingChunked(response)) {
                    repeated.remember(response, headBuf, headFrom, headTo);
                }
            } finally {
                keepHead = false;
                headBuf = null;
            }
        }

        @Override
        protected void encodeInitialLine(ByteBuf buf, HttpResponse response) throws Exception {
            if (keepHead) {
                headBuf = buf;
                headFrom = buf.writerIndex();
            }
            super.encodeInitialLine(buf, response);
        }

        @Override
        protected void encodeHeaders(HttpHeaders headers, ByteBuf buf) {
            super.encodeHeaders(headers, buf);
            headTo = buf.writerIndex() + 2; // with the empty line that ends the head, which Netty writes next
        }

        @Override
        protected boolean isContentAlwaysEmpty(HttpResponse msg) {
            if (HttpMethod.HEAD.equals(current)) {
                return true;
            }
            return super.isContentAlwaysEmpty(msg);
        }
    }
}
