package io.portico.metrics;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A {@code status = page} location: {@link StatusPage} as HTML, or as JSON when the request asks with
 * {@code ?format=json} or an Accept header that names {@code application/json}. Rendered on the metrics thread.
 */
public final class StatusResponder implements Responder {
    private final PorticoMetrics metrics;
    private final BooleanSupplier draining;

    public StatusResponder(PorticoMetrics metrics, BooleanSupplier draining) {
        this.metrics = metrics;
        this.draining = draining;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        if (AdminResponses.getOrHead(client, request)) {
            boolean json = wantsJson(request);
            boolean down = draining.getAsBoolean();
            AdminResponses.renderOff(client, metrics.executor(),
                    json ? "application/json" : "text/html; charset=utf-8", () -> {
                        StatusPage page = new StatusPage(metrics, down);
                        return (json ? page.json() : page.html()).getBytes(StandardCharsets.UTF_8);
                    });
        }
        return Exchange.DISCARD_BODY;
    }

    static boolean wantsJson(HttpRequest request) {
        List<String> format = new QueryStringDecoder(request.uri()).parameters().get("format");
        if (format != null && !format.isEmpty()) {
            return "json".equals(format.get(format.size() - 1));
        }
        String accept = request.headers().get(HttpHeaderNames.ACCEPT);
        return accept != null && accept.contains("application/json");
    }
}
