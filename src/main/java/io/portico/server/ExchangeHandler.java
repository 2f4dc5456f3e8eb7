package io.portico.server;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Route;
import java.io.IOException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The end of the pipeline: hands each request to its location's responder and the body to the exchange it
 * opened, enforcing the body size as it streams. An exchange hears of the client leaving only while its
 * response is incomplete: of its connection closing ({@link Exchange#onClientClosed}), and of its FIN once the
 * exchange has the whole request ({@link Exchange#onClientInputShutdown}; a FIN before that cuts the request short,
 * and the keep-alive stage closes the connection).
 *
 * <p>The body limit is the location's {@code max-body-size}, else {@code limits.max-body-size}. Before routing,
 * {@link HttpFramingHandler} refuses only a {@code Content-Length} over the largest limit of any location (it
 * cannot know the location yet); the location's own limit is checked here, from the head, before the responder
 * opens, before {@code 100 Continue}, and before any body byte goes anywhere.
 */
final class ExchangeHandler extends ChannelInboundHandlerAdapter implements ExchangeObserver {
    private static final Logger log = LoggerFactory.getLogger(ExchangeHandler.class);

    /** The current request's body limit. */
    private long bodyLimit;
    private Exchange exchange;
    private RequestContext request;
    private boolean bodyDone = true;
    private boolean responseDone = true;
    private long bodyBytes;
    /** The client sent its FIN: every exchange from now on hears of it, once, when it has the whole request. */
    private boolean inputShut;
    private boolean inputShutTold;

    /** The largest body any location allows: what may pass the framing stage, before routing. */
    static long largestBodyLimit(long maxBodySize, List<Route> routes) {
        long largest = maxBodySize;
        for (Route route : routes) {
            largest = Math.max(largest, route.location().maxBodySize().orElse(maxBodySize));
        }
        return largest;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest head) {
            start(ctx, head);
            if (msg instanceof FullHttpRequest whole) {
                // Responders take a request as its head, then its body parts: a whole one is split again.
                body(ctx, endOf(whole));
                return;
            }
        }
        if (msg instanceof HttpContent content) {
            body(ctx, content);
        } else if (!(msg instanceof HttpRequest)) {
            ReferenceCountUtil.release(msg);
        }
    }

    /** The body of a whole request as its last part; the content's reference moves to it. */
    private static LastHttpContent endOf(FullHttpRequest whole) {
        if (!whole.content().isReadable() && whole.trailingHeaders().isEmpty()) {
            whole.release();
            return LastHttpContent.EMPTY_LAST_CONTENT;
        }
        return new DefaultLastHttpContent(whole.content(), whole.trailingHeaders());
    }

    private void start(ChannelHandlerContext ctx, HttpRequest head) {
        request = (RequestContext) ctx.channel().attr(ClientExchange.KEY).get();
        bodyBytes = 0;
        bodyDone = false;
        responseDone = false;
        inputShutTold = false;
        // the location's, else limits.max-body-size of the request's own configuration
        bodyLimit = request.route().location().maxBodySize()
                .orElse(request.generation().config.limits().maxBodySize());
        if (HttpUtil.getContentLength(head, 0L) > bodyLimit) {
            // Over this location's limit, though not over every location's: refused from the head, as the
            // framing stage refuses the largest (the connection closes after the 413; the body is released as it
            // arrives).
            exchange = null;
            request.refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, null, true);
            return;
        }
        boolean expectsContinue = HttpUtil.is100ContinueExpected(head);
        if (expectsContinue) {
            head.headers().remove(HttpHeaderNames.EXPECT);
        } else if (head.headers().contains(HttpHeaderNames.EXPECT)) {
            if (head.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
                // RFC 9110 10.1.1: an HTTP/1.0 client's Expect is ignored (no 100, no 417), and not passed on.
                head.headers().remove(HttpHeaderNames.EXPECT);
            } else {
                // An expectation we cannot meet; the connection closes after the 417 and nothing the client sent
                // after this head (its body, a pipelined request) is read (KeepAliveHandler).
                exchange = null;
                request.refuse(HttpResponseStatus.EXPECTATION_FAILED, null, true);
                return;
            }
        }
        try {
            exchange = request.route().responder().open(request, head);
            if (expectsContinue && exchange != null && !request.responseStarted) {
                // The body is wanted: the request passed routing, rate limiting, its length check and the
                // location's access rules (a refusal from open() has already answered, so no 100 precedes it).
                ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
            }
        } catch (RuntimeException e) {
            log.error("responder of {} failed on {}", request.route().location().match(), head.uri(), e);
            exchange = null;
            if (!request.responseStarted) {
                request.sendError(HttpResponseStatus.INTERNAL_SERVER_ERROR, null, true);
            } else {
                ctx.close();
            }
        }
    }

    private void body(ChannelHandlerContext ctx, HttpContent content) {
        boolean last = content instanceof LastHttpContent;
        bodyBytes += content.content().readableBytes();
        if (bodyBytes > bodyLimit && exchange != null) {
            // A chunked body grew past the limit (a declared length was refused from the head).
            content.release();
            Exchange e = exchange;
            exchange = null;
            if (!responseDone) {
                e.onClientClosed();
            }
            if (request != null && !request.responseStarted) {
                request.refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, null, true);
            } else {
                ctx.close();
            }
            bodyDone = last;
            return;
        }
        if (last) {
            bodyDone = true;
        }
        if (exchange != null) {
            exchange.onContent(content);
        } else {
            content.release();
        }
        finishIfDone();
        tellInputShut();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputShut = true;
            tellInputShut();
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * The exchange in progress learns of the client's FIN once it has the request's last part and while its
     * response is incomplete: a request that was still on its way when the FIN came (held by the rate limiter, or
     * pipelined behind another) hears of it when it gets there.
     */
    private void tellInputShut() {
        Exchange e = exchange;
        if (inputShut && !inputShutTold && e != null && bodyDone && !responseDone) {
            inputShutTold = true;
            e.onClientInputShutdown();
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ExchangeEvents.of(ctx.channel()).observe(this);
    }

    @Override
    public void responseEnded(ChannelFuture written, boolean keepAlive) {
        responseDone = true;
        finishIfDone();
    }

    private void finishIfDone() {
        if (bodyDone && responseDone) {
            exchange = null;
            request = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Exchange e = exchange;
        exchange = null;
        if (e != null && !responseDone) {
            e.onClientClosed();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("client {}: {}", ctx.channel().remoteAddress(), cause.toString());
        } else {
            log.warn("client {}: unexpected error", ctx.channel().remoteAddress(), cause);
        }
        ctx.close();
    }
}
