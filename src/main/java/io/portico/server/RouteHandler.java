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

/**
 * Matches each request to its location by its normalized path ({@link io.portico.config.RequestPath}); a path that
 * cannot be normalized (undecodable, above the root) gets 400 and the connection is closed, as nginx does; a
 * request no location matches gets 404. Either way the request's body is released as it arrives.
 */
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
            String path = rc.path();
            Route route = path == null ? null : router.match(path);
            if (route == null) {
                discarding = !(msg instanceof LastHttpContent);
                ReferenceCountUtil.release(msg);
                if (path == null) {
                    rc.sendError(HttpResponseStatus.BAD_REQUEST, null, true);
                } else {
                    rc.sendError(HttpResponseStatus.NOT_FOUND);
                }
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
