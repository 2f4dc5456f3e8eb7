package io.portico.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A request prepared once per target: its headers are built once and shared (read-only) by every request sent to
 * that target, so sending costs one small object and a wrapped body, not a header copy.
 */
final class RequestTemplate {

    private final RequestTarget target;
    private final InetSocketAddress address;
    private final HttpMethod method;
    private final String uri;
    private final HttpHeaders headers;
    /** The pre-encoded request (null for HEAD), owned here; {@link #encoded} is its unreleasable view. */
    private final ByteBuf owned;
    private final ByteBuf encoded;

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
        this.owned = method == HttpMethod.HEAD ? null : encode();
        this.encoded = owned == null ? null : Unpooled.unreleasableBuffer(owned);
    }

    /**
     * The request as bytes, built once: writing a duplicate skips header encoding on every send (HttpClientCodec
     * passes ByteBufs through; its decoder treats a response without a queued method as a GET's). HEAD keeps the
     * HttpRequest path so the decoder knows the response has no body.
     */
    private ByteBuf encode() {
        StringBuilder head = new StringBuilder().append(method.name()).append(' ').append(uri).append(" HTTP/1.1\r\n");
        for (Map.Entry<String, String> e : headers) {
            head.append(e.getKey()).append(": ").append(e.getValue()).append("\r\n");
        }
        head.append("\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf buf = Unpooled.directBuffer(start.length + target.body().length);
        return buf.writeBytes(start).writeBytes(target.body());
    }

    /**
     * Frees the pre-encoded bytes. The run calls this once every connection is closed: duplicates in flight are
     * unreleasable views, so the template is the one owner of the memory.
     */
    void release() {
        if (owned != null && owned.refCnt() > 0) {
            owned.release();
        }
    }

    InetSocketAddress address() {
        return address;
    }

    RequestTarget target() {
        return target;
    }

    /** What to write for one request: a duplicate of the pre-encoded bytes, or (HEAD) an HttpRequest. */
    Object newMessage() {
        return encoded != null ? encoded.duplicate() : newRequest();
    }

    /** A new request sharing the template's headers; the encoder releases its (wrapped, uncopied) body. */
    FullHttpRequest newRequest() {
        byte[] body = target.body();
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body), headers,
                EmptyHttpHeaders.INSTANCE);
    }
}
