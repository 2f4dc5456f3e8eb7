package io.portico.metrics;

import io.netty.handler.codec.http.HttpRequest;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;

/**
 * A {@code metrics = prometheus} location (like Caddy's metrics handler): answers GET and HEAD with every family
 * in the Prometheus text format 0.0.4, rendered on the metrics thread (the JVM and process collectors read MXBeans
 * and /proc), then written from the event loop.
 */
public final class MetricsResponder implements Responder {
    private final PorticoMetrics metrics;

    public MetricsResponder(PorticoMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        if (AdminResponses.getOrHead(client, request)) {
            AdminResponses.renderOff(client, metrics.executor(), PorticoMetrics.contentType(), metrics::scrape);
        }
        return Exchange.DISCARD_BODY;
    }
}
