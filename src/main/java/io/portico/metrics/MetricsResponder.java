package io.portico.metrics;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import io.portico.route.ClientExchange;
import io.portico.route.Exchange;
import io.portico.route.Responder;
import java.nio.charset.StandardCharsets;

/**
 * A {@code metrics = prometheus} location (like Caddy's metrics handler or nginx's stub_status): answers GET and
 * HEAD with the current counters, rendered on the event loop from a handful of sums (no I/O, no lock held).
 */
public final class MetricsResponder implements Responder {
    private final MetricSources sources;

    public MetricsResponder(MetricSources sources) {
        this.sources = sources;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        HttpMethod method = request.method();
        if (!method.equals(HttpMethod.GET) && !method.equals(HttpMethod.HEAD)) {
            client.sendError(HttpResponseStatus.METHOD_NOT_ALLOWED,
                    new ReadOnlyHttpHeaders(true, HttpHeaderNames.ALLOW, "GET, HEAD"), false);
            return Exchange.DISCARD_BODY;
        }
        byte[] body = PrometheusText.render(sources).getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, PrometheusText.CONTENT_TYPE)
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        client.channel().writeAndFlush(response, client.channel().voidPromise());
        return Exchange.DISCARD_BODY;
    }
}
