package io.portico.ratelimit;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.config.LocationConfig;
import io.portico.route.ClientExchange;
import io.portico.route.RequestLog;
import io.portico.route.Route;
import java.net.InetSocketAddress;

/** The server's side of one request, as the handler sees it; sendError writes a plain response. */
final class FakeClient implements ClientExchange {
    private final Channel channel;
    private final Route route;
    private final InetSocketAddress address;
    private final RequestLog log = new RequestLog();
    private String rawPath = "/";

    FakeClient(Channel channel, LocationConfig location, String ip) {
        this.channel = channel;
        this.route = new Route(location, null);
        this.address = new InetSocketAddress(ip, 40000);
    }

    FakeClient path(String path) {
        this.rawPath = path;
        return this;
    }

    @Override
    public Channel channel() {
        return channel;
    }

    @Override
    public Route route() {
        return route;
    }

    @Override
    public String rawPath() {
        return rawPath;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return address;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return address;
    }

    @Override
    public boolean fromTrustedProxy() {
        return false;
    }

    @Override
    public boolean secure() {
        return false;
    }

    @Override
    public RequestLog log() {
        return log;
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers, boolean close) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
        if (headers != null) {
            response.headers().add(headers);
        }
        response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
        channel.writeAndFlush(response);
    }
}
