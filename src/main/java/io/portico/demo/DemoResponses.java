package io.portico.demo;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** Builds the complete responses the endpoints return: always a known length, never chunked, like a WSGI app. */
final class DemoResponses {

    static final String TEXT = "text/plain; charset=utf-8";
    static final String HTML = "text/html; charset=utf-8";

    private DemoResponses() {}

    static FullHttpResponse text(HttpResponseStatus status, String body) {
        return of(status, TEXT, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    static FullHttpResponse html(String body) {
        return of(HttpResponseStatus.OK, HTML, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
    }

    /** Takes ownership of {@code body}. */
    static FullHttpResponse of(HttpResponseStatus status, String contentType, ByteBuf body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        return response;
    }

    static FullHttpResponse notFound() {
        return text(HttpResponseStatus.NOT_FOUND, "404 Not Found\n");
    }

    static FullHttpResponse badRequest(String why) {
        return text(HttpResponseStatus.BAD_REQUEST, "400 Bad Request: " + why + "\n");
    }

    static FullHttpResponse methodNotAllowed(String allow) {
        FullHttpResponse response = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "405 Method Not Allowed\n");
        response.headers().set(HttpHeaderNames.ALLOW, allow);
        return response;
    }
}
