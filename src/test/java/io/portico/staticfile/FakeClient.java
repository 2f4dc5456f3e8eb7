package io.portico.staticfile;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.route.ClientExchange;
import io.portico.route.RequestLog;
import io.portico.route.Route;
import java.net.InetSocketAddress;

/** A ClientExchange over an EmbeddedChannel; sendError writes a bodiless FullHttpResponse like the server would. */
final class FakeClient implements ClientExchange {
    private final Channel channel;
    private final Route route;
    private final String rawPath;
    private final boolean secure;
    private final RequestLog log = new RequestLog();

    FakeClient(Channel channel, Route route, String rawPath, boolean secure) {
        this.channel = channel;
        this.route = route;
        this.rawPath = rawPath;
        this.secure = secure;
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
        return new InetSocketAddress("127.0.0.1", 40000);
    }

    @Override
    public InetSocketAddress peerAddress() {
        return clientAddress();
    }

    @Override
    public boolean fromTrustedProxy() {
        return false;
    }

    @Override
    public boolean secure() {
        return secure;
    }

    @Override
    public RequestLog log() {
        return log;
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers, boolean close) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.EMPTY_BUFFER);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        if (headers != null) {
            response.headers().add(headers);
        }
        channel.writeAndFlush(response);
    }
}
