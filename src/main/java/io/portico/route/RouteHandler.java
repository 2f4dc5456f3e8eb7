package io.portico.route;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;

/**
 * Matches each request to its virtual host (by {@code Host}) and then its location by its normalized path
 * ({@link io.portico.config.RequestPath}); a path that cannot be normalized (undecodable, above the root) gets 400
 * and the connection is closed, as nginx does; a request no location matches gets 404; over TLS, a request whose
 * {@code Host} is another virtual host than the one its SNI name chose gets 421 (RFC 9110 15.5.20: the client may
 * retry on a new connection). Either way the request is refused with {@link ClientExchange#refuse}: its body is
 * released as it arrives, by the exchanges' owner.
 *
 * <p>The request's record must be a {@link Routable}; one handler per client channel (or HTTP/2 stream), on its
 * event loop.
 */
public final class RouteHandler extends ChannelInboundHandlerAdapter {
    /** The host SNI chose on this TLS connection; null on a plain one or when the client sent no name. */
    private Router sniHost;
    /** The router {@link #sniHost} was looked up in: again after a reload. */
    private HostRouter sniLooked;

    /** The host the connection's SNI name chose, looked up once per configuration rather than per request. */
    private Router sniHost(Routable request, HostRouter hosts) {
        if (sniLooked != hosts) {
            sniLooked = hosts;
            String sni = request.sniName();
            sniHost = sni != null && hosts.virtual() ? hosts.router(sni) : null;
        }
        return sniHost;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            Routable rc = (Routable) ctx.channel().attr(ClientExchange.KEY).get();
            String path = rc.path();
            HostRouter hosts = rc.hosts();
            Router router = hosts.router(((HttpRequest) msg).headers().get(HttpHeaderNames.HOST));
            Router sni = sniHost(rc, hosts);
            boolean misdirected = sni != null && router != sni;
            Route route = path == null || misdirected ? null : router.match(path);
            if (route == null) {
                ReferenceCountUtil.release(msg);
                // the body that follows is released by the exchanges' owner, never reaching this stage
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
