package io.portico.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.HttpConversionUtil;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.portico.connection.ExchangeEvents;
import io.portico.exchange.HttpDates;

/**
 * The owner of an HTTP/2 stream's exchange, as {@link KeepAliveHandler} is of an HTTP/1.1 connection's: it tells
 * the other stages ({@link ExchangeEvents}) when the request starts and ends and when the response's head and last
 * part are written. A stream carries one exchange, so there is no keep-alive to decide: the codec ends the stream
 * with the response, and drops the connection-specific fields (Connection, Keep-Alive) HTTP/2 forbids.
 *
 * <p>It also sets the fields a stream's messages need beside Netty's conversion: the {@code x-http2-*} fields the
 * codec adds to a request (the scheme, the stream id) are removed, since they are not the client's and must not
 * reach an app; every response gets {@code Date} and {@code Server}, as on an HTTP/1.1 connection.
 */
final class StreamExchangeHandler extends ChannelDuplexHandler {
    private static final AsciiString SERVER = AsciiString.cached("portico");
    private ExchangeEvents events;
    /** The request's body has not ended. */
    private boolean bodyOpen;
    /** The request was refused ({@link Refusal}): the rest of its body is released here. */
    private boolean dropping;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        events = ExchangeEvents.of(ctx.channel());
        events.ownerDrops(() -> dropping = bodyOpen);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            HttpHeaders h = request.headers();
            for (HttpConversionUtil.ExtensionHeaderNames name : HttpConversionUtil.ExtensionHeaderNames.values()) {
                h.remove(name.text());
            }
            boolean whole = msg instanceof LastHttpContent; // HEADERS with END_STREAM
            bodyOpen = !whole;
            events.fireRequestStarted(request, !whole);
            if (whole) {
                events.fireRequestEnded();
            }
        } else if (msg instanceof LastHttpContent) {
            bodyOpen = false;
            events.fireRequestEnded();
        }
        if (dropping && !(msg instanceof HttpRequest)) {
            dropping = bodyOpen;
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response && !HttpMessages.isInterim(msg)) {
            HttpHeaders h = response.headers();
            if (!h.contains(HttpHeaderNames.DATE)) {
                h.set(HttpHeaderNames.DATE, HttpDates.now());
            }
            if (!h.contains(HttpHeaderNames.SERVER)) {
                h.set(HttpHeaderNames.SERVER, SERVER);
            }
            events.fireResponseStarted(response);
        }
        if (HttpMessages.endsResponse(msg)) {
            events.fireResponseEnded(ctx.write(msg, events.writtenWanted() ? promise.unvoid() : promise), false);
            return;
        }
        ctx.write(msg, promise);
    }
}
