package io.portico.route;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.config.TargetConfig;
import io.portico.config.TextTemplate;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import io.portico.exchange.ResponseHeaders;
import io.portico.exchange.Variables;
import java.nio.charset.StandardCharsets;

/**
 * nginx's {@code return}: a fixed status with a redirect location or a short body, either of which may hold
 * variables ({@code "https://$host$request_uri"}). A body without variables is encoded once and shared.
 */
public final class ReturnResponder implements Responder {

    private final HttpResponseStatus status;
    private final TextTemplate location;
    private final TextTemplate bodyTemplate;
    private final ByteBuf body;

    public ReturnResponder(TargetConfig.Return target) {
        this.status = HttpResponseStatus.valueOf(target.status());
        this.location = target.location().orElse(null);
        this.bodyTemplate = target.body();
        byte[] bytes = target.body().isLiteral() ? target.body().text().getBytes(StandardCharsets.UTF_8) : new byte[0];
        // Shared by every response: unreleasable, and each response writes a duplicate with its own indexes.
        this.body = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(bytes).asReadOnly());
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        ByteBuf content = bodyTemplate.isLiteral() ? body.duplicate() : Unpooled.wrappedBuffer(
                Variables.expand(bodyTemplate, client, request).getBytes(StandardCharsets.UTF_8));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content,
                ResponseHeaders.HEADERS, ResponseHeaders.NO_TRAILERS);
        if (location != null) {
            response.headers().set(HttpHeaderNames.LOCATION, Variables.expand(location, client, request));
        }
        if (content.isReadable()) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        }
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        client.channel().writeAndFlush(response, client.channel().voidPromise());
        return Exchange.DISCARD_BODY;
    }
}
