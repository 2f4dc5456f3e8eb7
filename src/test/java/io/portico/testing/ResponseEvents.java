package io.portico.testing;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.portico.connection.ExchangeEvents;

/**
 * For a stage tested alone in an {@code EmbeddedChannel}: stands where the server's exchange owner is (the keep-alive
 * stage) and tells the channel's {@link ExchangeEvents} when a written response starts and ends, as the owner does.
 * Put it first, so that the stage's writes pass it.
 */
public final class ResponseEvents extends ChannelOutboundHandlerAdapter {
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean interim = msg instanceof HttpResponse r && r.status().codeClass() == HttpStatusClass.INFORMATIONAL;
        ExchangeEvents events = ExchangeEvents.of(ctx.channel());
        if (msg instanceof HttpResponse response && !interim) {
            events.fireResponseStarted(response);
        }
        if (msg instanceof LastHttpContent && !interim) {
            events.fireResponseEnded(ctx.write(msg, promise), true);
            return;
        }
        ctx.write(msg, promise);
    }
}
