package io.portico.upstream;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import java.util.ArrayDeque;

/**
 * What the uwsgi and FastCGI encoders share: the location's {@link CgiParams}, written just before the head, are
 * held until it and handed over with it; the method of each head that goes out is queued for the response decoder
 * (a HEAD's response has no body); a head, a body part and anything else each go to their own method.
 */
abstract class CgiRequestEncoder extends ChannelOutboundHandlerAdapter {
    private final ArrayDeque<HttpMethod> methods;
    private CgiParams params;

    CgiRequestEncoder(ArrayDeque<HttpMethod> methods) {
        this.methods = methods;
    }

    @Override
    public final void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof CgiParams p) {
            params = p;
            promise.trySuccess();
        } else if (msg instanceof HttpRequest head) {
            CgiParams p = params;
            params = null;
            writeHead(ctx, head, p, promise);
        } else if (msg instanceof HttpContent part) {
            writeBody(ctx, part, promise);
        } else {
            ctx.write(msg, promise);
        }
    }

    /**
     * Encodes and writes {@code head} (which may be a full request with its content), consuming it; calls
     * {@link #sent} once it goes out.
     */
    abstract void writeHead(ChannelHandlerContext ctx, HttpRequest head, CgiParams params, ChannelPromise promise);

    /** Encodes and writes a body part, consuming it. */
    abstract void writeBody(ChannelHandlerContext ctx, HttpContent part, ChannelPromise promise);

    /** A request with this method went out: its response is next. */
    final void sent(HttpMethod method) {
        methods.add(method);
    }
}
