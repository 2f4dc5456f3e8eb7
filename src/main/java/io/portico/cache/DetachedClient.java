package io.portico.cache;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.RequestLog;
import io.portico.exchange.Route;
import java.net.InetSocketAddress;

/**
 * The client of a background refresh: the request that found the entry stale, for its addresses, scheme and event
 * loop (the upstream connection is taken from that loop's pool), but with a log of its own and no error page: the
 * refresh's response goes to the cache only ({@link FillTap#detached}), never to this client's connection.
 */
final class DetachedClient implements ClientExchange {
    private final ClientExchange trigger;
    private final RequestLog log = new RequestLog();

    DetachedClient(ClientExchange trigger) {
        this.trigger = trigger;
    }

    @Override
    public Channel channel() {
        return trigger.channel();
    }

    @Override
    public Route route() {
        return trigger.route();
    }

    @Override
    public String rawPath() {
        return trigger.rawPath();
    }

    @Override
    public String path() {
        return trigger.path();
    }

    @Override
    public InetSocketAddress clientAddress() {
        return trigger.clientAddress();
    }

    @Override
    public InetSocketAddress peerAddress() {
        return trigger.peerAddress();
    }

    @Override
    public boolean fromTrustedProxy() {
        return trigger.fromTrustedProxy();
    }

    @Override
    public boolean secure() {
        return trigger.secure();
    }

    @Override
    public boolean http2() {
        return trigger.http2();
    }

    @Override
    public boolean sendfile() {
        return false;
    }

    @Override
    public RequestLog log() {
        return log;
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers, boolean close) {
        // nobody to answer: the refresh failed, the stale entry stays
    }
}
