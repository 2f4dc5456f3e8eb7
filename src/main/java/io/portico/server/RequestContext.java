package io.portico.server;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.RequestPath;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.RequestLog;
import io.portico.exchange.Route;
import io.portico.route.HostRouter;
import io.portico.route.Routable;
import io.portico.tls.ServerTls;
import java.net.InetSocketAddress;

/** The request in progress on one connection, as the handlers after routing and the responder see it. */
final class RequestContext implements Routable {
    /** The configuration this request is served by, from its head to the end of its response. */
    private final Generation generation;
    /** The listener the request came on, whose routers {@link #generation} has. */
    private final ListenerKey listener;
    private final Channel channel;
    private final HttpRequest request;
    private final InetSocketAddress peer;
    private final String peerIp;
    private final InetSocketAddress client;
    private final boolean trustedPeer;
    /** This connection is TLS (so files cannot go by sendfile). */
    private final boolean secure;
    /** The client spoke TLS to the balancer in front, which said so in its PROXY header: the scheme is https. */
    private final boolean proxiedTls;
    /** The request came on an HTTP/2 stream (Netty's stream codec made it an HTTP/1.1 message). */
    private final boolean http2;
    private final String rawPath;
    /** {@link RequestPath#normalize}d; null when the path is refused (the route stage answers 400). */
    private final String path;
    /** When the request began (the duration histogram); the wall clock only for the access log. */
    private final long startNanos;
    private final long startMillis;
    /** Made when something writes to it (a proxied request, a rate-limit note): a static hit or a 404 makes none. */
    private RequestLog log;
    private Route route;
    int status;
    long bytes;
    long bodyBytesRead;
    boolean responseStarted;

    RequestContext(Generation generation, ListenerKey listener, Channel channel, HttpRequest request, InetSocketAddress peer, String peerIp,
            InetSocketAddress client, boolean trustedPeer, boolean secure, boolean proxiedTls, boolean http2,
            boolean timed) {
        this.startNanos = System.nanoTime();
        this.startMillis = timed ? System.currentTimeMillis() : 0;
        this.generation = generation;
        this.listener = listener;
        this.proxiedTls = proxiedTls;
        this.channel = channel;
        this.request = request;
        this.peer = peer;
        this.peerIp = peerIp;
        this.client = client;
        this.trustedPeer = trustedPeer;
        this.secure = secure;
        this.http2 = http2;
        String uri = request.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        if (!path.startsWith("/") && !path.equals("*")) {
            // Absolute form (already checked against Host): keep its path.
            int scheme = path.indexOf("://");
            int slash = scheme < 0 ? -1 : path.indexOf('/', scheme + 3);
            path = slash < 0 ? "/" : path.substring(slash);
        }
        this.rawPath = path;
        this.path = RequestPath.normalize(path);
    }

    Generation generation() {
        return generation;
    }

    @Override
    public HostRouter hosts() {
        return generation.router(listener);
    }

    @Override
    public String sniName() {
        // An HTTP/2 stream's connection is its parent; a plain connection's parent is its listener, not a connection.
        Channel connection = http2 ? channel.parent() : channel;
        return connection.attr(ServerTls.SNI_HOST).get();
    }

    @Override
    public void route(Route route) {
        this.route = route;
    }

    HttpRequest request() {
        return request;
    }

    long startNanos() {
        return startNanos;
    }

    long startMillis() {
        return startMillis;
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
        return path;
    }

    @Override
    public InetSocketAddress clientAddress() {
        return client;
    }

    @Override
    public InetSocketAddress peerAddress() {
        return peer;
    }

    @Override
    public String peerIp() {
        return peerIp;
    }

    /** The real client's IP address as text. */
    String clientIp() {
        return client == peer ? peerIp : client.getAddress().getHostAddress();
    }

    @Override
    public boolean fromTrustedProxy() {
        return trustedPeer;
    }

    @Override
    public boolean secure() {
        return secure || proxiedTls;
    }

    @Override
    public boolean sendfile() {
        return !secure && !http2;
    }

    @Override
    public boolean http2() {
        return http2;
    }

    /** The protocol as the client spoke it, for the access log: {@code HTTP/2.0} on a stream. */
    String protocol() {
        return protocol(request);
    }

    @Override
    public RequestLog log() {
        if (log == null) {
            log = new RequestLog();
        }
        return log;
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers, boolean close) {
        String accept = request.headers().get(HttpHeaderNames.ACCEPT);
        channel.writeAndFlush(ErrorPages.build(status, accept, headers, close), channel.voidPromise());
    }

    @Override
    public void refuse(HttpResponseStatus status, HttpHeaders headers, boolean close) {
        Refusal.refuse(channel, request, status, headers, close);
    }
}
