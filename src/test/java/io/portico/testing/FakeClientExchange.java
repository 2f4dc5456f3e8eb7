package io.portico.testing;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.config.RequestPath;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.RequestLog;
import io.portico.exchange.Route;
import java.net.InetSocketAddress;

/**
 * The server's side of one request for handler and responder tests over an EmbeddedChannel: a fixed client
 * address, and a sendError that writes a bodiless response the way the server's error pages end a response.
 */
public final class FakeClientExchange implements ClientExchange {
    private final Channel channel;
    private final Route route;
    private final RequestLog log = new RequestLog();
    private String rawPath = "/";
    private InetSocketAddress address = new InetSocketAddress("127.0.0.1", 40000);
    private boolean secure;
    /** The TCP peer when it is not the client (a proxy), and whether it is trusted. */
    private InetSocketAddress peer;
    private boolean trustedPeer;

    public FakeClientExchange(Channel channel, Route route) {
        this.channel = channel;
        this.route = route;
    }

    public FakeClientExchange path(String path) {
        this.rawPath = path;
        return this;
    }

    public FakeClientExchange client(String ip) {
        this.address = new InetSocketAddress(ip, 40000);
        return this;
    }

    /** The connection comes from {@code ip}, a proxy ({@code trusted} or not) in front of the client. */
    public FakeClientExchange peer(String ip, boolean trusted) {
        this.peer = new InetSocketAddress(ip, 40000);
        this.trustedPeer = trusted;
        return this;
    }

    public FakeClientExchange secure(boolean secure) {
        this.secure = secure;
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
    public String path() {
        return rawPath == null ? null : RequestPath.normalize(rawPath);
    }

    @Override
    public InetSocketAddress clientAddress() {
        return address;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer != null ? peer : address;
    }

    @Override
    public boolean fromTrustedProxy() {
        return trustedPeer;
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
