package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http2.Http2CodecUtil;
import java.util.List;

/**
 * A plain listener that speaks h2c: a connection whose first bytes are HTTP/2's client preface
 * ({@code PRI * HTTP/2.0...}, RFC 9113 3.4, "prior knowledge") gets the HTTP/2 stages, any other the HTTP/1.1
 * ones; this handler then leaves and hands on what it read. An HTTP/1.1 request differs at its first byte, so it
 * is never held back.
 */
final class H2cPrefaceDetector extends ByteToMessageDecoder {
    private static final ByteBuf PREFACE = Http2CodecUtil.connectionPrefaceBuf();
    private final ClientChannelInitializer pipelines;

    H2cPrefaceDetector(ClientChannelInitializer pipelines) {
        this.pipelines = pipelines;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), PREFACE.readableBytes());
        boolean prefix = io.netty.buffer.ByteBufUtil.equals(in, in.readerIndex(), PREFACE, PREFACE.readerIndex(), n);
        if (prefix && n < PREFACE.readableBytes()) {
            return; // so far it is the preface: wait for the rest
        }
        if (prefix) {
            pipelines.addHttp2(ctx.pipeline());
        } else {
            pipelines.addHttp1(ctx.pipeline());
        }
        ctx.pipeline().remove(this);
    }
}
