package io.portico.bench;

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
    }

    InetSocketAddress address() {
        return address;
    }

    RequestTarget target() {
        return target;
    }

    /** A new request sharing the template's headers; the encoder releases its (wrapped, uncopied) body. */
    FullHttpRequest newRequest() {
        byte[] body = target.body();
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri,
                body.length == 0 ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body), headers,
                EmptyHttpHeaders.INSTANCE);
    }
}
