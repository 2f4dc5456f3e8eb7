package io.portico.tls;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.util.concurrent.atomic.LongAdder;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose TLS failed (a handshake the client could not complete: no common version or cipher, an
 * untrusted certificate, garbage) and logs it at debug, one line: it is the client's failure, and a scanner makes
 * thousands, so it must not fill the error log (nginx logs them at info). Any other exception goes on. Counts the
 * handshakes that completed and failed, for the metrics: one instance per server, shared by its TLS listeners.
 */
@ChannelHandler.Sharable
public final class TlsFailureHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(TlsFailureHandler.class);
    private final LongAdder handshakes = new LongAdder();
    private final LongAdder failures = new LongAdder();

    /** Handshakes that completed. */
    public long handshakes() {
        return handshakes.sum();
    }

    /** Handshakes that failed (including a connection closed or timed out before its handshake completed). */
    public long failures() {
        return failures.sum();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent done) {
            (done.isSuccess() ? handshakes : failures).increment();
        }
        ctx.fireUserEventTriggered(evt);
    }

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
