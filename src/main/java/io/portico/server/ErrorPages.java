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
import io.netty.util.AsciiString;
import io.portico.exchange.HttpDates;
import io.portico.exchange.ResponseHeaders;
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

    /** A page's bytes (direct, so the encoder copies them with one memcpy) and its length as the header wants it. */
    private record Page(String reason, ByteBuf body, AsciiString length) {
        static Page of(HttpResponseStatus status, boolean html) {
            ByteBuf body = ErrorPages.body(status, html);
            return new Page(status.reasonPhrase(), body, AsciiString.of(Integer.toString(body.readableBytes())));
        }
    }

    private ErrorPages() {}

    /**
     * An error response to be written above {@link KeepAliveHandler}, which gives every response it passes its
     * {@code Server} and {@code Date}. (Setting them here as well set them twice per error, and the second clock
     * read alone was about 1 % of a rejection flood's loop.)
     *
     * @param accept the request's Accept header, or null when there was no parsable request
     * @param close whether the connection is closed after this response
     */
    public static FullHttpResponse build(HttpResponseStatus status, String accept, HttpHeaders extra, boolean close) {
        boolean html = accept == null || accept.isEmpty() || accept.contains("text/html") || accept.contains("*/*");
        // A duplicate of an unreleasable buffer: own indices, and releasing it (the encoder does) frees nothing.
        ConcurrentMap<Integer, Page> pages = html ? HTML_PAGES : PLAIN_PAGES;
        Page page = pages.get(status.code());
        if (page == null) { // no capturing lambda per call: a flood of 503s allocates no page and no closure
            page = Page.of(status, html);
            Page raced = pages.putIfAbsent(status.code(), page);
            if (raced != null) {
                // another loop cached it first: this one's buffer goes (dropped unreleased, the leak detector
                // reported it when three servers' loops sent their first 429 at once)
                page.body().unwrap().release();
                page = raced;
            }
        }
        ByteBuf content;
        AsciiString length;
        if (page.reason().equals(status.reasonPhrase())) {
            content = page.body().duplicate();
            length = page.length();
        } else {
            // A custom reason phrase: a page of its own, not cached, in a plain heap buffer that the encoder's
            // release frees (an unreleasable one, as cached pages are, was never freed: a leak per response).
            content = Unpooled.wrappedBuffer(text(status, html).getBytes(StandardCharsets.UTF_8));
            length = AsciiString.of(Integer.toString(content.readableBytes()));
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content,
                ResponseHeaders.HEADERS, ResponseHeaders.NO_TRAILERS);
        HttpHeaders h = response.headers(); // new and empty: add, not set (which looks each name up first)
        h.add(HttpHeaderNames.CONTENT_TYPE, html ? HTML : PLAIN);
        h.add(HttpHeaderNames.CONTENT_LENGTH, length);
        if (extra != null) {
            h.add(extra);
        }
        if (close) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }

    /** An error response written below {@link KeepAliveHandler} (bad framing), which closes the connection. */
    static FullHttpResponse buildBelowKeepAlive(HttpResponseStatus status) {
        FullHttpResponse response = build(status, null, null, true);
        response.headers().add(HttpHeaderNames.SERVER, SERVER).add(HttpHeaderNames.DATE, HttpDates.now());
        return response;
    }

    private static String text(HttpResponseStatus status, boolean html) {
        String text = status.code() + " " + status.reasonPhrase();
        return html
                ? "<!DOCTYPE html>\n<html><head><title>" + text + "</title></head>\n<body><h1>" + text
                        + "</h1><hr><p>portico</p></body></html>\n"
                : text + "\n";
    }

    private static ByteBuf body(HttpResponseStatus status, boolean html) {
        byte[] bytes = text(status, html).getBytes(StandardCharsets.UTF_8);
        return Unpooled.unreleasableBuffer(Unpooled.directBuffer(bytes.length).writeBytes(bytes));
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
