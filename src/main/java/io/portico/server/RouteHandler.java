package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;
import io.portico.route.HostRouter;
import io.portico.route.Router;
import io.portico.tls.ServerTls;

/**
 * Matches each request to its virtual host (by {@code Host}) and then its location by its normalized path
 * ({@link io.portico.config.RequestPath}); a path that cannot be normalized (undecodable, above the root) gets 400
 * and the connection is closed, as nginx does; a request no location matches gets 404; over TLS, a request whose
 * {@code Host} is another virtual host than the one its SNI name chose gets 421 (RFC 9110 15.5.20: the client may
 * retry on a new connection). Either way the request is refused through {@link Refusal}: its body is released as it
 * arrives.
 */
final class RouteHandler extends ChannelInboundHandlerAdapter {
    /** The connection's listener: each request is routed by its generation's router for it. */
    private final ListenerKey listener;
    /** The host SNI chose on this TLS connection; null on a plain one or when the client sent no name. */
    private Router sniHost;
    /** The router {@link #sniHost} was looked up in: again after a reload. */
    private HostRouter sniLooked;

    RouteHandler(ListenerKey listener) {
        this.listener = listener;
    }

    /** The host the connection's SNI name chose (an HTTP/2 stream's connection is its parent), once a router. */
    private Router sniHost(Channel channel, HostRouter hosts) {
        if (sniLooked != hosts) {
            sniLooked = hosts;
            // (a plain connection's parent is its listener, not a connection)
            Channel connection = channel instanceof Http2StreamChannel ? channel.parent() : channel;
            String sni = connection.attr(ServerTls.SNI_HOST).get();
            sniHost = sni != null && hosts.virtual() ? hosts.router(sni) : null;
        }
        return sniHost;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            RequestContext rc = (RequestContext) ctx.channel().attr(ClientExchange.KEY).get();
            String path = rc.path();
            HostRouter hosts = rc.generation().router(listener);
            Router router = hosts.router(((HttpRequest) msg).headers().get(HttpHeaderNames.HOST));
            Router sni = sniHost(ctx.channel(), hosts);
            boolean misdirected = sni != null && router != sni;
            Route route = path == null || misdirected ? null : router.match(path);
            if (route == null) {
                ReferenceCountUtil.release(msg);
                // the body that follows is released by the exchange's owner (Refusal), never reaching this stage
                if (path == null) {
                    rc.refuse(HttpResponseStatus.BAD_REQUEST, null, true);
                } else if (misdirected) {
                    rc.refuse(HttpResponseStatus.MISDIRECTED_REQUEST, null, false);
                } else {
                    rc.refuse(HttpResponseStatus.NOT_FOUND, null, false);
                }
                return;
            }
            rc.route(route);
        }
        ctx.fireChannelRead(msg);
    }
}
