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
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** Every error response Portico sends is built here: a small HTML page, or plain text when the client prefers it. */
public final class ErrorPages {

    private static final AsciiString SERVER = AsciiString.cached("portico");
    private static final AsciiString HTML = AsciiString.cached("text/html; charset=utf-8");
    private static final AsciiString PLAIN = AsciiString.cached("text/plain; charset=utf-8");
    /**
     * Pages by status code (at most a few hundred) and flavour: a page is the same bytes every time, so a flood of
     * 503s builds none. The reason phrase is kept to tell a standard status from a custom one with the same code.
     */
    private static final ConcurrentMap<Integer, Page> HTML_PAGES = new ConcurrentHashMap<>();
    private static final ConcurrentMap<Integer, Page> PLAIN_PAGES = new ConcurrentHashMap<>();

    private record Page(String reason, ByteBuf body) {}

    private ErrorPages() {}

    /**
     * @param accept the request's Accept header, or null when there was no parsable request
     * @param close whether the connection is closed after this response
     */
    public static FullHttpResponse build(HttpResponseStatus status, String accept, HttpHeaders extra, boolean close) {
        boolean html = accept == null || accept.isEmpty() || accept.contains("text/html") || accept.contains("*/*");
        // A duplicate of an unreleasable buffer: own indices, and releasing it (the encoder does) frees nothing.
        Page page = (html ? HTML_PAGES : PLAIN_PAGES)
                .computeIfAbsent(status.code(), code -> new Page(status.reasonPhrase(), body(status, html)));
        ByteBuf content = page.reason().equals(status.reasonPhrase()) ? page.body().duplicate() : body(status, html);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content, ResponseHeaders.HEADERS, ResponseHeaders.NO_TRAILERS);
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.SERVER, SERVER);
        h.set(HttpHeaderNames.DATE, HttpDates.now());
        h.set(HttpHeaderNames.CONTENT_TYPE, html ? HTML : PLAIN);
        h.setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        if (extra != null) {
            h.add(extra);
        }
        if (close) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }

    private static ByteBuf body(HttpResponseStatus status, boolean html) {
        String text = status.code() + " " + status.reasonPhrase();
        String body = html
                ? "<!DOCTYPE html>\n<html><head><title>" + text + "</title></head>\n<body><h1>" + text
                        + "</h1><hr><p>portico</p></body></html>\n"
                : text + "\n";
        return Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)).asReadOnly());
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
