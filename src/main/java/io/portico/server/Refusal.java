package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ReadGate;

/**
 * The one early-rejection path: a request refused before anything answered it gets its error page here, then either
 * the rest of it is drained (its body chunks released as they arrive, by the exchange's owner) and the connection
 * kept, or the connection closes after the page when the request's framing is in doubt. nginx does the same in one
 * place ({@code ngx_http_finalize_request} with {@code ngx_http_discard_request_body}).
 *
 * <ul>
 *   <li>{@link #refuse}: a request that has its record (routing's 400/404/421, access rules' 403, the rate limits'
 *       429/503, the location's 413 and 417): written from the top of the pipeline like any response, so the
 *       keep-alive stage gives it Date, Server and Connection and makes the keep-alive decision as for any other.
 *   <li>{@link #refuseAndClose}: a request refused at the framing stage, below the owner (400, 405, 413, 414, 431):
 *       no later stage saw it or may see anything after it, so reads stop for good and the connection closes after
 *       the page; the framing stage releases everything that still arrives.
 * </ul>
 */
final class Refusal {
    private Refusal() {}

    static void refuse(Channel channel, HttpRequest request, HttpResponseStatus status, HttpHeaders headers,
            boolean close) {
        ExchangeEvents.of(channel).dropRestOfRequest(); // before the page: its end may already let the next one in
        String accept = request.headers().get(HttpHeaderNames.ACCEPT);
        channel.writeAndFlush(ErrorPages.build(status, accept, headers, close), channel.voidPromise());
    }

    static void refuseAndClose(ChannelHandlerContext ctx, HttpResponseStatus status) {
        ReadGate.of(ctx.channel()).hold(ReadGate.Reason.CLOSING);
        FullHttpResponse response = ErrorPages.buildBelowKeepAlive(status);
        if (status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
            response.headers().add(HttpHeaderNames.ALLOW, KeepAliveHandler.ALLOW);
        }
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }
}
