package io.portico.tls;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.ssl.SslHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The first look at a TLS listener's bytes: a TLS record goes on to the SNI handler (this handler removes itself),
 * anything else gets a plain-text 400 saying that plain HTTP was sent to a TLS port, as nginx answers it, and the
 * connection is closed. Without it such a client sees its connection reset, with no clue why.
 */
public final class PlainHttpRefusal extends ByteToMessageDecoder {
    private static final byte[] RESPONSE = ("HTTP/1.1 400 Bad Request\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: 49\r\n"
            + "Connection: close\r\n\r\n"
            + "400 Bad Request: plain HTTP sent to a TLS port.\r\n").getBytes(StandardCharsets.US_ASCII);
    /** A TLS record header: content type, version, length. */
    private static final int RECORD_HEADER = 5;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < RECORD_HEADER) {
            return;
        }
        if (SslHandler.isEncrypted(in, false)) {
            ctx.pipeline().remove(this); // hands what it holds on to the SNI handler
            return;
        }
        in.skipBytes(in.readableBytes());
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(Unpooled.wrappedBuffer(RESPONSE)).addListener(ChannelFutureListener.CLOSE);
    }
}
