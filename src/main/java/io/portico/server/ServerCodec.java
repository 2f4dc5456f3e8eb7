package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.portico.connection.ClientPipeline;
import io.portico.http1.FieldList;
import io.portico.http1.FieldNames;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Netty's {@code HttpServerCodec}, made strict: bare LF line endings are refused, and a request carrying both
 * Content-Length and Transfer-Encoding fails to decode instead of having its Content-Length silently dropped
 * (the ambiguity request smuggling lives on). Three more rules Netty's decoder cannot be configured for: several
 * Content-Lengths on HTTP/1.0 ({@link Http10Headers}), chunk-size lines that break the grammar or its bound
 * ({@link ChunkLines}), and {@code max-header-size} counted exactly ({@link HeadSize}). Like HttpServerCodec it
 * remembers request methods so that a response to HEAD carries no body.
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
        HttpDecoderConfig config = new HttpDecoderConfig()
                .setMaxInitialLineLength(maxRequestLine)
                .setMaxHeaderSize(maxHeaderSize)
                .setMaxChunkSize(64 * 1024)
                .setStrictLineParsing(true)
                .setAllowDuplicateContentLengths(false)
                .setValidateHeaders(true);
        // After setValidateHeaders, which replaces the factory: the same validation, the fields in one array.
        config.setHeadersFactory(FieldList.factory((DefaultHttpHeadersFactory) config.getHeadersFactory()));
        p.addLast(ClientPipeline.DECODER, new RequestDecoder(config, methods, maxHeaderSize));
        p.addLast(ClientPipeline.ENCODER, new ResponseEncoder(methods));
    }

    /** Framing that a front tier must refuse even though Netty would accept it. */
    static final class AmbiguousFramingException extends IllegalArgumentException {
        AmbiguousFramingException(String message) {
            super(message);
        }
    }

    static final class RequestDecoder extends HttpRequestDecoder {
        private final ArrayDeque<HttpMethod> methods;
        private final HeadSize headSize;
        /** A failure was emitted: like Netty's BAD_MESSAGE state, every later byte is dropped. */
        private boolean broken;
        /** The bytes being decoded belong to a request head (not to a body). */
        private boolean inHead = true;
        /** The head's first byte that is not an empty line before it has been seen. */
        private boolean headStarted;
        /** Bytes the decoder consumed for the current head, and how many of them were skipped before it. */
        private long headBytes;
        private long skipped;

        RequestDecoder(HttpDecoderConfig config, ArrayDeque<HttpMethod> methods, int maxHeaderSize) {
            super(config);
            this.methods = methods;
            this.headSize = new HeadSize(maxHeaderSize);
        }

        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
            if (broken) {
                in.skipBytes(in.readableBytes()); // as Netty's own BAD_MESSAGE state: nothing after is parsed
                return;
            }
            if (ChunkLines.atSizeLine(this)) {
                Exception bad = ChunkLines.check(in);
                if (bad != null) {
                    fail(in, out, bad);
                    return;
                }
            } else if (inHead && !headStarted) {
                int readable = in.readableBytes();
                int leading = HeadSize.leadingSkipped(in);
                skipped += leading;
                headStarted = leading < readable;
            }
            int from = in.readerIndex();
            int before = out.size();
            super.decode(ctx, in, out);
            if (inHead) {
                headBytes += in.readerIndex() - from;
            }
            for (int i = before; i < out.size(); i++) {
                Object o = out.get(i);
                if (o instanceof HttpRequest request) {
                    inHead = false;
                    methods.add(request.method());
                    headSize.check(request, headBytes - skipped);
                    joinIfBodiless(out, i, request);
                    o = out.get(i);
                }
                if (o instanceof LastHttpContent) {
                    nextHead(); // a request's end (a whole bodiless request included): the next bytes are a head
                }
                if (o instanceof HttpObject http && http.decoderResult().isFailure()) {
                    broken = true; // a refused message: nothing after it on this connection is ours to read
                }
            }
        }

        private void nextHead() {
            inHead = true;
            headStarted = false;
            headBytes = 0;
            skipped = 0;
        }

        /** Refuses the chunked body here: a failed last content, then every later byte is dropped unread. */
        private void fail(ByteBuf in, List<Object> out, Exception cause) {
            broken = true;
            in.skipBytes(in.readableBytes());
            LastHttpContent end = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
            end.setDecoderResult(DecoderResult.failure(cause));
            out.add(end);
        }

        /**
         * A request without a body goes up the pipeline as one message instead of two: every handler above sees it
         * once (ExchangeHandler gives responders its end separately). Netty's decoder adds the empty end in the
         * same call; a request it could not decode ends there and stays as it is.
         */
        private static void joinIfBodiless(List<Object> out, int i, HttpRequest request) {
            if (i + 1 < out.size() && out.get(i + 1) == LastHttpContent.EMPTY_LAST_CONTENT
                    && request.decoderResult().isSuccess()) {
                // The request line was validated when Netty's decoder built the head; not again.
                out.set(i, new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                        Unpooled.EMPTY_BUFFER, request.headers(),
                        LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders(), false));
                out.remove(i + 1);
            }
        }

        /** A common field name is a shared instance (as Netty does for five), not a copy per request. */
        @Override
        protected AsciiString splitHeaderName(byte[] line, int start, int length) {
            return FieldNames.of(line, start, length);
        }

        @Override
        protected HttpMessage createMessage(String[] initialLine) throws Exception {
            // Netty upper-cases the version; RFC 9112 says it is case-sensitive, and only 1.0 and 1.1 exist here.
            if (!initialLine[2].equals("HTTP/1.1") && !initialLine[2].equals("HTTP/1.0")) {
                throw new AmbiguousFramingException("unsupported version " + initialLine[2]);
            }
            HttpMessage message = super.createMessage(initialLine);
            if (message.protocolVersion().equals(HttpVersion.HTTP_1_0)
                    && message instanceof HttpRequest request) {
                // Netty reads only the first of several Content-Lengths on HTTP/1.0: these headers refuse the rest.
                return new DefaultHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                        new Http10Headers());
            }
            return message;
        }

        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            message.setDecoderResult(DecoderResult.failure(
                    new AmbiguousFramingException("both Content-Length and Transfer-Encoding")));
            super.handleTransferEncodingChunkedWithContentLength(message);
        }
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
