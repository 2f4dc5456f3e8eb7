package io.portico.compress;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.CompressionConfig;
import io.portico.config.CompressionConfig.Coding;
import io.portico.exchange.ClientExchange;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compresses the responses of one connection (or HTTP/2 stream) whose location enables it. It sits right above
 * the codec: it sees each request head as decoded (what the client accepts, its method, whether it asked for a
 * range), in order, and each response after every other stage, whoever produced it. {@link CompressionPolicy}
 * decides per response; a whole response is compressed whole (its new length known), a streamed one chunk by
 * chunk through the encoder, which holds no more than zlib's window (or zstd's 64 KiB block): nothing is buffered
 * here beyond what one write brings, so the relay's writability-based flow control is unchanged.
 *
 * <p>Ownership: a body part is read by the encoder and released here; what the encoder produces is written on,
 * and the encoder of a response cut short (the client left) is freed with what it holds ({@link #cleanup}).
 * gzip's Deflater is kept for the connection's next response and ended when the connection closes.
 */
final class CompressionHandler extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(CompressionHandler.class);

    private final ResponseCompression compression;
    private final boolean onStream;
    /** What each request awaiting its response asked for, oldest first (pipelined requests queue here). */
    private final ArrayDeque<RequestFacts> requests = new ArrayDeque<>(2);
    /** The encoder of the streamed response being compressed, or null. */
    private BodyEncoder encoder;
    /** gzip's encoder, kept across this connection's responses (reset for each) while the level stays. */
    private GzipBodyEncoder gzip;
    private int gzipLevel;
    /** Whether the response being decided has a known length (then its parts need not be flushed one by one). */
    private boolean knownLength;
    /** The compression settings of the location whose response {@link #decide} chose a coding for. */
    private CompressionConfig config;

    CompressionHandler(ResponseCompression compression, boolean onStream) {
        this.compression = compression;
        this.onStream = onStream;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            requests.add(RequestFacts.of(request));
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            if (response.status().codeClass() == io.netty.handler.codec.http.HttpStatusClass.INFORMATIONAL) {
                ctx.write(msg, promise); // 100 Continue, 101: not the answer, nothing to compress
                return;
            }
            cleanup(ctx); // a response left unfinished (never: each ends with a LastHttpContent) frees its encoder
            Coding coding = decide(ctx, response);
            if (coding == null) {
                ctx.write(msg, promise);
            } else if (msg instanceof FullHttpResponse full) {
                writeWhole(ctx, full, coding, promise);
            } else {
                startStream(ctx, response, coding, promise);
            }
            return;
        }
        if (encoder != null) {
            if (msg instanceof HttpContent content) {
                writeContent(ctx, content, promise);
                return;
            }
            if (msg instanceof FileRegion) {
                // A responder that asked ResponseCompression.compressing() never does this; the head is out, so
                // only closing tells the client the body will not follow.
                log.error("a file region reached a compressed response on {}; closing", ctx.channel());
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IllegalStateException("file region in a compressed response"));
                cleanup(ctx);
                ctx.close();
                return;
            }
        }
        ctx.write(msg, promise);
    }

    /** The coding for this response, its head already rewritten for it; null (head left as sent) for none. */
    private Coding decide(ChannelHandlerContext ctx, HttpResponse response) {
        RequestFacts request = requests.poll();
        ClientExchange exchange = ctx.channel().attr(ClientExchange.KEY).get();
        if (request == null || exchange == null || exchange.route() == null) {
            return null; // an answer to no request (a head timeout's 408) or from before routing: left alone
        }
        CompressionConfig config = exchange.route().location().compression();
        if (!config.enabled()) {
            return null;
        }
        this.config = config;
        long length = response instanceof FullHttpResponse full && !request.head()
                ? full.content().readableBytes()
                : lengthOf(response.headers());
        knownLength = length >= 0;
        Coding coding = CompressionPolicy.choose(config, request, response, length);
        if (coding != null) {
            CompressionPolicy.rewriteHead(response.headers(), coding);
        }
        return request.head() && coding != null ? null : coding; // HEAD: the GET's headers, no body work
    }

    private static long lengthOf(HttpHeaders headers) {
        String cl = headers.get(HttpHeaderNames.CONTENT_LENGTH);
        if (cl == null) {
            return -1;
        }
        try {
            return Long.parseLong(cl.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** A whole body, compressed whole: the response keeps a known Content-Length (the compressed one). */
    private void writeWhole(ChannelHandlerContext ctx, FullHttpResponse full, Coding coding, ChannelPromise promise) {
        BodyEncoder enc = take(ctx, coding, config);
        ByteBuf body;
        try {
            body = enc.encode(full.content(), true);
        } catch (RuntimeException e) {
            enc.close();
            full.release();
            promise.setFailure(e);
            throw e;
        }
        give(enc);
        FullHttpResponse out = new DefaultFullHttpResponse(full.protocolVersion(), full.status(), body,
                full.headers(), full.trailingHeaders());
        full.release();
        out.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        out.headers().remove(HttpHeaderNames.TRANSFER_ENCODING);
        ctx.write(out, promise);
    }

    /** An encoder for a response: the connection's gzip one, reset, when it fits; else a new one. */
    private BodyEncoder take(ChannelHandlerContext ctx, Coding coding, CompressionConfig config) {
        if (coding == Coding.GZIP && gzip != null && gzipLevel == config.gzipLevel()) {
            GzipBodyEncoder g = gzip;
            gzip = null;
            g.reset();
            return g;
        }
        return compression.encoder(ctx, coding, config);
    }

    /** A finished response's encoder: gzip's is kept for the next response (one kept at most), others freed. */
    private void give(BodyEncoder enc) {
        if (enc instanceof GzipBodyEncoder g && gzip == null) {
            gzip = g;
            gzipLevel = g.level();
        } else {
            enc.close();
        }
    }

    /** A streamed body: the head goes now, chunked (HTTP/2 ends the stream instead), then each part encoded. */
    private void startStream(ChannelHandlerContext ctx, HttpResponse response, Coding coding, ChannelPromise promise) {
        encoder = take(ctx, coding, config);
        encoder.flushEachPart(!knownLength);
        ctx.channel().attr(ResponseCompression.STREAMING).set(Boolean.TRUE);
        if (!onStream) {
            response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        ctx.write(response, promise);
    }

    private void writeContent(ChannelHandlerContext ctx, HttpContent content, ChannelPromise promise) {
        boolean last = content instanceof LastHttpContent;
        if (!last && !content.content().isReadable()) {
            content.release();
            promise.trySuccess(); // nothing to encode; a flush of nothing would only add bytes
            return;
        }
        HttpHeaders trailers = last ? ((LastHttpContent) content).trailingHeaders() : null;
        ByteBuf out;
        try {
            out = encoder.encode(content.content(), last);
        } catch (RuntimeException e) {
            content.release();
            promise.setFailure(e);
            cleanup(ctx);
            ctx.close(); // the head is out: a body that cannot be encoded can only be cut
            return;
        }
        content.release();
        if (last) {
            BodyEncoder done = encoder;
            encoder = null;
            ctx.channel().attr(ResponseCompression.STREAMING).set(null);
            give(done);
            ctx.write(out.isReadable() ? new DefaultLastHttpContent(out, trailers) : lastOf(out, trailers), promise);
        } else if (out.isReadable()) {
            ctx.write(new DefaultHttpContent(out), promise);
        } else {
            out.release();
            promise.trySuccess(); // absorbed by the encoder (zstd gathers a block): the writer may go on
        }
    }

    private static LastHttpContent lastOf(ByteBuf empty, HttpHeaders trailers) {
        empty.release();
        return trailers.isEmpty() ? LastHttpContent.EMPTY_LAST_CONTENT
                : new DefaultLastHttpContent(io.netty.buffer.Unpooled.EMPTY_BUFFER, trailers);
    }

    /** Frees the encoder of an unfinished response (the client left, or the stage is removed). */
    private void cleanup(ChannelHandlerContext ctx) {
        BodyEncoder e = encoder;
        if (e != null) {
            encoder = null;
            ctx.channel().attr(ResponseCompression.STREAMING).set(null);
            e.close(); // cut short: never reused
        }
    }

    /** The connection is gone: its kept gzip state too. */
    private void closeAll(ChannelHandlerContext ctx) {
        cleanup(ctx);
        if (gzip != null) {
            gzip.close();
            gzip = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closeAll(ctx);
        requests.clear();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        closeAll(ctx);
    }
}
