package io.portico.server;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;

/**
 * The fields an HTTP/2 stream's messages need beside Netty's conversion: the {@code x-http2-*} fields the codec adds
 * to a request (the scheme, the stream id) are removed, since they are not the client's and must not reach an app;
 * every response gets {@code Date} and {@code Server}, as {@link KeepAliveHandler} sets them on an HTTP/1.1
 * connection. A stream has no keep-alive to decide: the codec ends it with the response, and drops the
 * connection-specific fields (Connection, Keep-Alive) HTTP/2 forbids.
 */
@ChannelHandler.Sharable
final class StreamHeaders extends ChannelDuplexHandler {
    static final StreamHeaders INSTANCE = new StreamHeaders();
    private static final AsciiString SERVER = AsciiString.cached("portico");

    private StreamHeaders() {}

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            HttpHeaders h = request.headers();
            for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
                h.remove(name.text());
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            HttpHeaders h = response.headers();
            if (!h.contains(HttpHeaderNames.DATE)) {
                h.set(HttpHeaderNames.DATE, HttpDates.now());
            }
            if (!h.contains(HttpHeaderNames.SERVER)) {
                h.set(HttpHeaderNames.SERVER, SERVER);
            }
        }
        ctx.write(msg, promise);
    }
}
