package io.portico.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.Channel;
import io.portico.config.LimitsConfig;
import io.portico.metrics.AccessLog;
import io.portico.route.ClientPipeline;
import io.portico.route.HostRouter;
import java.util.function.Supplier;
import io.netty.channel.ChannelHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.portico.tls.PlainHttpRefusal;
import io.portico.tls.ServerTls;
import io.portico.config.LocationConfig;
import io.portico.metrics.LocationMeters;
import io.portico.metrics.PorticoMetrics;
import java.util.function.Function;

/**
 * A client connection's pipeline, in the order a request passes through it: this method is the whole request
 * path. Handlers are per connection and never added or removed per request.
 */
final class ClientChannelInitializer extends ChannelInitializer<Channel> {
    private final LimitsConfig limits;
    private final ServerState state;
    private final ConnectionLimiter connectionLimiter;
    private final ClientAddresses addresses;
    private final AccessLog accessLog;
    private final Function<LocationConfig, LocationMeters> meters;
    private final PorticoMetrics metrics;
    private final HostRouter router;
    private final Supplier<ChannelHandler> rateLimiter;
    /** The listener's TLS, or null for plain HTTP. */
    private final ServerTls tls;
    /** A Content-Length over this is refused before routing; a location's own limit after it. */
    private final long largestBodyLimit;

    ClientChannelInitializer(LimitsConfig limits, ServerState state, ConnectionLimiter connectionLimiter,
            ClientAddresses addresses, AccessLog accessLog, HostRouter router, Supplier<ChannelHandler> rateLimiter,
            Function<LocationConfig, LocationMeters> meters, PorticoMetrics metrics, ServerTls tls) {
        this.limits = limits;
        this.state = state;
        this.connectionLimiter = connectionLimiter;
        this.addresses = addresses;
        this.accessLog = accessLog;
        this.router = router;
        this.meters = meters;
        this.metrics = metrics;
        this.rateLimiter = rateLimiter;
        this.tls = tls;
        this.largestBodyLimit = ExchangeHandler.largestBodyLimit(limits.maxBodySize(), router.routes());
    }

    @Override
    protected void initChannel(Channel ch) {
        state.add(ch);
        metrics.connectionAccepted();
        ChannelPipeline p = ch.pipeline();
        addConnectionHandlers(p);
        if (tls != null) {
            addTlsHandlers(ch, p);
        }
        addHttp1Handlers(p);
        addPorticoHandlers(p);
    }

    /** Connection-level limits and the client timers, below HTTP. */
    private void addConnectionHandlers(ChannelPipeline p) {
        p.addLast(ClientPipeline.CONNECTIONS, connectionLimiter);
        p.addLast(ClientPipeline.TIMEOUTS, new ClientTimeoutHandler(
                limits.keepaliveTimeout(), limits.clientHeaderTimeout(),
                limits.clientBodyTimeout(), limits.sendTimeout(), limits.clientBodyMinRate()));
    }

    /**
     * TLS below the client timers, so that a handshake counts against client-header-timeout as well as its own
     * handshake-timeout: plain HTTP refused with a 400 of its own, then SNI, which becomes the chosen SslHandler.
     */
    private void addTlsHandlers(Channel ch, ChannelPipeline p) {
        p.addBefore(ClientPipeline.TIMEOUTS, ClientPipeline.TLS_PLAIN_REFUSAL, new PlainHttpRefusal());
        p.addBefore(ClientPipeline.TIMEOUTS, ClientPipeline.TLS, tls.newHandler(ch.alloc()));
        p.addBefore(ClientPipeline.TIMEOUTS, ClientPipeline.TLS_FAILURES, metrics.tlsHandler());
    }

    /** HTTP/1.1 framing, strict, then one request at a time with keep-alive. */
    private void addHttp1Handlers(ChannelPipeline p) {
        ServerCodec.addTo(p, limits.maxRequestLine(), limits.maxHeaderSize());
        if (tls != null) {
            // A file cannot go by sendfile through TLS: the static responder writes it as chunks (FileChunks).
            p.addLast(ClientPipeline.CHUNKED_WRITES, new ChunkedWriteHandler());
        }
        p.addLast(ClientPipeline.FRAMING, new HttpFramingHandler(limits.maxHeaderCount(), largestBodyLimit));
        p.addLast(ClientPipeline.KEEPALIVE, new KeepAliveHandler(limits.keepaliveRequests(), state));
    }

    /** The request's record and access log, routing, rate limiting, then the responder. */
    private void addPorticoHandlers(ChannelPipeline p) {
        p.addLast(ClientPipeline.ACCESS_LOG, new RequestContextHandler(addresses, accessLog, meters, tls != null));
        p.addLast(ClientPipeline.ROUTE, new RouteHandler(router));
        ChannelHandler limiter = rateLimiter.get();
        if (limiter != null) {
            p.addLast(ClientPipeline.RATE_LIMIT, limiter);
        }
        p.addLast(ClientPipeline.EXCHANGE, new ExchangeHandler(limits.maxBodySize()));
    }
}
