package io.portico.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SniCompletionEvent;
import io.portico.tls.ServerTls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TLS connection's HTTP stages, added once the handshake has chosen the protocol: HTTP/2 when ALPN agreed on
 * {@code h2}, HTTP/1.1 otherwise (a client that offers no ALPN too). On the way it keeps the name the client sent
 * in SNI on the connection ({@link ServerTls#SNI_HOST}), which routing compares with each request's Host (421).
 */
final class AlpnHandler extends ApplicationProtocolNegotiationHandler {
    private static final Logger log = LoggerFactory.getLogger(AlpnHandler.class);
    private final ClientChannelInitializer pipelines;

    AlpnHandler(ClientChannelInitializer pipelines) {
        super(ApplicationProtocolNames.HTTP_1_1);
        this.pipelines = pipelines;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof SniCompletionEvent sni && sni.isSuccess() && sni.hostname() != null) {
            ctx.channel().attr(ServerTls.SNI_HOST).set(sni.hostname());
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
        if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
            pipelines.addHttp2(ctx.pipeline());
        } else {
            pipelines.addHttp1(ctx.pipeline());
        }
    }

    @Override
    protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
        // The client's failure, not the server's: one debug line (TlsFailureHandler's rule), and the connection goes.
        log.debug("client {}: TLS handshake failed: {}", ctx.channel().remoteAddress(), cause.getMessage());
        ctx.close();
    }
}
