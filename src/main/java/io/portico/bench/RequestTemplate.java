package io.portico.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A request prepared once per target and encoded once: every request sent to that target writes a view of the same
 * bytes, so sending costs no header encoding and no copy.
 */
final class RequestTemplate {

    private final RequestTarget target;
    private final InetSocketAddress address;
    private final HttpMethod method;
    private final String uri;
    private final HttpHeaders headers;
    /** The pre-encoded request, owned here; {@link #encoded} is its unreleasable view. */
    private final ByteBuf owned;
    private final ByteBuf encoded;
    private final boolean head;
    /** The request as HTTP/2 headers, shared by every stream (the HPACK encoder only reads them); built once. */
    private final Http2Headers h2Headers;
    /** The body alone, an unreleasable view for HTTP/2 DATA frames. */
    private final ByteBuf body;

    RequestTemplate(RequestTarget target, InetSocketAddress address, BenchOptions options) {
        this.target = target;
        this.address = address;
        this.method = HttpMethod.valueOf(target.method());
        this.uri = target.pathAndQuery();
        HttpHeaders h = new DefaultHttpHeaders();
        h.set(HttpHeaderNames.HOST, target.hostHeader());
        h.set(HttpHeaderNames.USER_AGENT, "portico-bench");
        h.set(HttpHeaderNames.ACCEPT, "*/*");
        for (Map.Entry<String, String> header : options.headers()) {
            h.set(header.getKey(), header.getValue());
        }
        if (target.body().length > 0 || method == HttpMethod.POST || method == HttpMethod.PUT) {
            h.set(HttpHeaderNames.CONTENT_LENGTH, target.body().length);
            if (!h.contains(HttpHeaderNames.CONTENT_TYPE)) {
                h.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_X_WWW_FORM_URLENCODED);
            }
        }
        if (!options.keepAlive()) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        this.headers = h;
        this.head = method == HttpMethod.HEAD;
        this.owned = encode();
        this.encoded = Unpooled.unreleasableBuffer(owned);
        this.body = Unpooled.unreleasableBuffer(owned.slice(owned.readableBytes() - target.body().length,
                target.body().length));
        this.h2Headers = toH2(h);
    }

    private Http2Headers toH2(HttpHeaders h) {
        Http2Headers h2 = new DefaultHttp2Headers();
        h2.method(method.name()).path(uri).scheme(target.secure() ? "https" : "http").authority(target.hostHeader());
        for (Map.Entry<String, String> e : h) {
            String name = e.getKey().toLowerCase(java.util.Locale.ROOT);
            // connection-specific headers are forbidden in HTTP/2 (RFC 9113 8.2.2); Host is :authority
            if (!name.equals("host") && !name.equals("connection") && !name.equals("keep-alive")
                    && !name.equals("transfer-encoding") && !name.equals("upgrade")) {
                h2.add(name, e.getValue());
            }
        }
        return h2;
    }

    Http2Headers h2Headers() {
        return h2Headers;
    }

    /** A view of the body for one DATA frame (its own indices); releasing it frees nothing. */
    ByteBuf h2Body() {
        return body.duplicate();
    }

    /** The request as bytes, built once (the response parser is told separately when it answers a HEAD). */
    private ByteBuf encode() {
        StringBuilder text = new StringBuilder().append(method.name()).append(' ').append(uri).append(" HTTP/1.1\r\n");
        for (Map.Entry<String, String> e : headers) {
            text.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n");
        }
        text.append("\r\n");
        byte[] start = text.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf buf = Unpooled.directBuffer(start.length + target.body().length);
        return buf.writeBytes(start).writeBytes(target.body());
    }

    /**
     * Frees the pre-encoded bytes. The run calls this once every connection is closed: duplicates in flight are
     * unreleasable views, so the template is the one owner of the memory.
     */
    void release() {
        if (owned.refCnt() > 0) {
            owned.release();
        }
    }

    InetSocketAddress address() {
        return address;
    }

    RequestTarget target() {
        return target;
    }

    /** Whether this is a HEAD request, whose response has headers only. */
    boolean head() {
        return head;
    }

    /**
     * A view of the request bytes with its own indices, for one connection: rewinding it ({@code readerIndex(0)})
     * makes it ready for the next send. Releasing it frees nothing.
     */
    ByteBuf newView() {
        return encoded.duplicate();
    }
}
