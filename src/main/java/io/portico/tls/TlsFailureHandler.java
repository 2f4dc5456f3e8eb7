package io.portico.tls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose TLS failed (a handshake the client could not complete: no common version or cipher, an
 * untrusted certificate, garbage) and logs it at debug, one line: it is the client's failure, and a scanner makes
 * thousands, so it must not fill the error log (nginx logs them at info). Any other exception goes on.
 */
@ChannelHandler.Sharable
public final class TlsFailureHandler extends ChannelInboundHandlerAdapter {
    public static final TlsFailureHandler INSTANCE = new TlsFailureHandler();
    private static final Logger log = LoggerFactory.getLogger(TlsFailureHandler.class);

    private TlsFailureHandler() {}

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable tls = cause instanceof DecoderException && cause.getCause() instanceof SSLException ? cause.getCause()
                : cause instanceof SSLException ? cause : null;
        if (tls == null) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        log.debug("client {}: TLS failed: {}", ctx.channel().remoteAddress(), tls.getMessage());
        ctx.close();
    }
}
