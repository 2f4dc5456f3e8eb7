package io.portico.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Keeps one request in flight per connection and decides whether the connection outlives it. Pipelined requests
 * wait here, with reads paused, until the response before them is complete, so every handler after this one sees
 * requests strictly one at a time. Every response gets {@code Date}, {@code Server} and the right
 * {@code Connection} header; the connection closes after a response that says close.
 */
final class KeepAliveHandler extends ChannelDuplexHandler {
    private static final AsciiString SERVER = AsciiString.cached("portico");

    private final int maxRequests;
    private final ServerState state;
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private ClientTimeoutHandler timeouts;
    private int requests;
    private boolean inFlight;
    private boolean keepAlive;
    private boolean http10;

    KeepAliveHandler(int maxRequests, ServerState state) {
        this.maxRequests = maxRequests;
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeouts = ctx.pipeline().get(ClientTimeoutHandler.class);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if ((inFlight && msg instanceof HttpRequest) || !waiting.isEmpty()) {
            // A pipelined request: hold it (and stop reading more) until the current response is done.
            waiting.add(msg);
            ctx.channel().config().setAutoRead(false);
            return;
        }
        deliver(ctx, msg);
    }

    private void deliver(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            inFlight = true;
            requests++;
            http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
            keepAlive = HttpUtil.isKeepAlive(request) && requests < maxRequests && !state.draining();
            if (timeouts != null) {
                timeouts.headReceived(!(msg instanceof LastHttpContent) && hasBody(request));
            }
        } else if (msg instanceof LastHttpContent && timeouts != null) {
            timeouts.bodyReceived();
        }
        ctx.fireChannelRead(msg);
    }

    private static boolean hasBody(HttpRequest request) {
        return HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response && !HttpMessages.isInterim(msg)) {
            prepare(response);
        }
        if (HttpMessages.endsResponse(msg)) {
            boolean close = !keepAlive;
            inFlight = false;
            if (close) {
                ctx.write(msg, promise.unvoid()).addListener(ChannelFutureListener.CLOSE);
                releaseWaiting();
                return;
            }
            ctx.write(msg, promise);
            if (timeouts != null) {
                timeouts.responseComplete();
            }
            if (!waiting.isEmpty()) {
                ctx.executor().execute(() -> drainWaiting(ctx));
            }
            return;
        }
        ctx.write(msg, promise);
    }

    private void prepare(HttpResponse response) {
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.SERVER, SERVER);
        h.set(HttpHeaderNames.DATE, HttpDates.now());
        String connection = h.get(HttpHeaderNames.CONNECTION);
        if (connection != null && HttpHeaderValues.CLOSE.contentEqualsIgnoreCase(connection)) {
            keepAlive = false;
        }
        // Without a length or chunking the body ends only when the connection does.
        if (keepAlive && !h.contains(HttpHeaderNames.CONTENT_LENGTH) && !HttpUtil.isTransferEncodingChunked(response)
                && response.status().code() != 204 && response.status().code() != 304) {
            keepAlive = false;
        }
        if (!keepAlive) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        } else if (connection != null) {
            h.remove(HttpHeaderNames.CONNECTION);
        }
    }

    private void drainWaiting(ChannelHandlerContext ctx) {
        while (!waiting.isEmpty() && !inFlight) {
            deliver(ctx, waiting.poll());
        }
        while (!waiting.isEmpty() && !(waiting.peek() instanceof HttpRequest)) {
            deliver(ctx, waiting.poll());
        }
        if (waiting.isEmpty() && ctx.channel().isActive()) {
            ctx.channel().config().setAutoRead(true);
            ctx.read();
        }
    }

    private void releaseWaiting() {
        Object o;
        while ((o = waiting.poll()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    /** No request in flight or waiting: closing now loses nothing. Called on the event loop. */
    boolean idle() {
        return !inFlight && waiting.isEmpty();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseWaiting();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseWaiting();
    }
}
