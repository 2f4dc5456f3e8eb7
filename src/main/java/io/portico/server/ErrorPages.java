package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.route.ResponseHeaders;
import java.nio.charset.StandardCharsets;

/** Every error response Portico sends is built here: a small HTML page, or plain text when the client prefers it. */
public final class ErrorPages {

    private ErrorPages() {}

    /**
     * @param accept the request's Accept header, or null when there was no parsable request
     * @param close whether the connection is closed after this response
     */
    public static FullHttpResponse build(HttpResponseStatus status, String accept, HttpHeaders extra, boolean close) {
        boolean html = accept == null || accept.isEmpty() || accept.contains("text/html") || accept.contains("*/*");
        String text = status.code() + " " + status.reasonPhrase();
        String body = html
                ? "<!DOCTYPE html>\n<html><head><title>" + text + "</title></head>\n<body><h1>" + text
                        + "</h1><hr><p>portico</p></body></html>\n"
                : text + "\n";
        ByteBuf content = Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8));
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content, ResponseHeaders.HEADERS, ResponseHeaders.NO_TRAILERS);
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.SERVER, "portico");
        h.set(HttpHeaderNames.DATE, HttpDates.now());
        h.set(HttpHeaderNames.CONTENT_TYPE, html ? "text/html; charset=utf-8" : "text/plain; charset=utf-8");
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        if (extra != null) {
            h.add(extra);
        }
        if (close) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }

    /** A pre-encoded response for places below the HTTP codec (timeouts before a request head is complete). */
    static ByteBuf raw(HttpResponseStatus status) {
        String text = status.code() + " " + status.reasonPhrase();
        String body = text + "\n";
        String head = "HTTP/1.1 " + text + "\r\nServer: portico\r\nDate: " + HttpDates.now()
                + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " + body.length()
                + "\r\nConnection: close\r\n\r\n";
        return Unpooled.wrappedBuffer((head + body).getBytes(StandardCharsets.US_ASCII));
    }
}
