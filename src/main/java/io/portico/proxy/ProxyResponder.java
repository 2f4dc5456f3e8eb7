package io.portico.proxy;

import io.netty.handler.codec.http.HttpRequest;
import io.portico.route.ClientExchange;
import io.portico.route.Exchange;
import io.portico.route.Responder;

/** Answers one location's requests from its upstream pool; stateless, shared by every event loop. */
final class ProxyResponder implements Responder {
    private final ProxySettings settings;

    ProxyResponder(ProxySettings settings) {
        this.settings = settings;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        ProxyExchange exchange = new ProxyExchange(settings, client, request);
        exchange.start();
        return exchange;
    }
}
