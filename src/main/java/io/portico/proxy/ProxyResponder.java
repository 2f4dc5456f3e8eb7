package io.portico.proxy;

import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;

/**
 * Answers one location's requests from its upstream pool; stateless, shared by every event loop. A response cache
 * opens its exchanges with a {@link ResponseTap} and rewrites the heads it answers with as this location would.
 */
public final class ProxyResponder implements Responder {
    private final ProxySettings settings;

    ProxyResponder(ProxySettings settings) {
        this.settings = settings;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        return open(client, request, ResponseTap.NONE);
    }

    /** Proxies {@code request} with {@code tap} watching the response. */
    public Exchange open(ClientExchange client, HttpRequest request, ResponseTap tap) {
        ProxyExchange exchange = new ProxyExchange(settings, client, request, tap);
        exchange.start();
        return exchange;
    }

    /**
     * Rewrites an upstream head (a stored one) for {@code client} as a relayed one is: hop-by-hop headers removed,
     * Via and set-response-headers applied.
     */
    public void rewrite(HttpResponse response, HttpRequest request, ClientExchange client) {
        ForwardedResponse.rewrite(response, request, client, settings);
    }
}
