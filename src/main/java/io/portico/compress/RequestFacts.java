package io.portico.compress;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;

/**
 * What a request head says that decides its response's compression, copied when it is decoded: by the time the
 * response is written, a responder may have changed the head (the proxy rewrites it for the upstream).
 *
 * @param acceptEncoding the Accept-Encoding field (several joined by ", "), or null
 * @param head a HEAD request: the response gets the GET's headers and no body work
 * @param range the request asked for a range: its answer is never compressed (nginx, Caddy)
 * @param http10 an HTTP/1.0 client: no chunked framing, and nginx's gzip_http_version 1.1 skips it too
 */
record RequestFacts(String acceptEncoding, boolean head, boolean range, boolean http10) {

    static RequestFacts of(HttpRequest request) {
        java.util.List<String> all = request.headers().getAll(HttpHeaderNames.ACCEPT_ENCODING);
        String accept = all.isEmpty() ? null : all.size() == 1 ? all.get(0) : String.join(", ", all);
        return new RequestFacts(accept, HttpMethod.HEAD.equals(request.method()),
                request.headers().contains(HttpHeaderNames.RANGE),
                HttpVersion.HTTP_1_0.equals(request.protocolVersion()));
    }
}
