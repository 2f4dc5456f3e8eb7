package io.portico.proxy;

import io.netty.channel.socket.DuplexChannel;
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

    /**
     * Proxies {@code request} with {@code tap} watching the response. A request whose client sent its FIN before it
     * got here (held by a rate limit's delay or a shared zone's verdict, or pipelined behind another) is not sent:
     * its exchange would abort on that FIN as soon as it heard of it, after the app had the request. It ends as
     * nginx ends a request whose client closes during limit_req's delay: the connection closed, 499 in the access
     * log. Unless the location ignores client aborts, or a cache fill (a tap) may store the response for others.
     */
    public Exchange open(ClientExchange client, HttpRequest request, ResponseTap tap) {
        if (tap == ResponseTap.NONE && !settings.target().ignoreClientAbort()
                && client.channel() instanceof DuplexChannel duplex && duplex.isInputShutdown()) {
            client.channel().close();
            return Exchange.DISCARD_BODY;
        }
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
