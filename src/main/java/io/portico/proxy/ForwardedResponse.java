package io.portico.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.config.TextTemplate;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Variables;
import java.util.Map;

/**
 * Rewrites an upstream response head in place for the client: hop-by-hop headers removed, re-framed for the
 * client connection (chunked when the upstream delimited the body by closing), Via and the location's
 * {@code setResponseHeaders} applied (an empty value removes; variables take the client request's values).
 * Connection headers are the server's job.
 */
final class ForwardedResponse {
    private ForwardedResponse() {}

    static void rewrite(HttpResponse response, HttpRequest request, ClientExchange client, ProxySettings settings) {
        HttpMethod method = request.method();
        HttpVersion clientVersion = request.protocolVersion();
        HttpHeaders h = response.headers();
        boolean hadLength = h.contains(HttpHeaderNames.CONTENT_LENGTH);
        // A HEAD response keeps saying how the GET would be framed, so the client connection stays reusable.
        boolean chunkedHead = method.equals(HttpMethod.HEAD) && HttpUtil.isTransferEncodingChunked(response);
        HopByHop.remove(h);
        response.setProtocolVersion(HttpVersion.HTTP_1_1);
        if (!hadLength && (mayHaveBody(response, method) || chunkedHead)
                && clientVersion.equals(HttpVersion.HTTP_1_1)) {
            h.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        if (settings.target().via()) {
            String via = h.get(HttpHeaderNames.VIA);
            h.set(HttpHeaderNames.VIA, via == null ? ForwardedRequest.VIA : via + ", " + ForwardedRequest.VIA);
        }
        Map<String, TextTemplate> configured = settings.target().setResponseHeaders();
        if (configured.isEmpty()) {
            return; // iterating even an empty map makes two objects
        }
        for (Map.Entry<String, TextTemplate> e : configured.entrySet()) {
            if (e.getValue().text().isEmpty()) {
                h.remove(e.getKey());
            } else {
                h.set(e.getKey(), Variables.expand(e.getValue(), client, request));
            }
        }
    }

    static boolean mayHaveBody(HttpResponse response, HttpMethod method) {
        int code = response.status().code();
        return !method.equals(HttpMethod.HEAD) && code >= 200 && code != 204 && code != 304;
    }
}
