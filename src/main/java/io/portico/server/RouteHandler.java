package io.portico.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.route.ClientExchange;
import io.portico.route.Route;
import io.portico.route.Router;

/** Matches each request to its location; a request no location matches gets 404 and its body is released. */
final class RouteHandler extends ChannelInboundHandlerAdapter {
    private final Router router;
    private boolean discarding;

    RouteHandler(Router router) {
        this.router = router;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            RequestContext rc = (RequestContext) ctx.channel().attr(ClientExchange.KEY).get();
            Route route = router.match(rc.rawPath());
            if (route == null) {
                discarding = !(msg instanceof LastHttpContent);
                ReferenceCountUtil.release(msg);
                rc.sendError(HttpResponseStatus.NOT_FOUND);
                return;
            }
            discarding = false;
            rc.route(route);
        } else if (discarding && msg instanceof HttpContent) {
            discarding = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }
}
