package io.portico.server;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.Channel;
import io.portico.config.LimitsConfig;
import io.portico.metrics.AccessLog;
import io.portico.route.ClientPipeline;
import io.portico.route.Router;
import java.util.function.Supplier;
import io.netty.channel.ChannelHandler;

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
    private final Router router;
    private final Supplier<ChannelHandler> rateLimiter;
    /** A Content-Length over this is refused before routing; a location's own limit after it. */
    private final long largestBodyLimit;

    ClientChannelInitializer(LimitsConfig limits, ServerState state, ConnectionLimiter connectionLimiter,
            ClientAddresses addresses, AccessLog accessLog, Router router, Supplier<ChannelHandler> rateLimiter) {
        this.limits = limits;
        this.state = state;
        this.connectionLimiter = connectionLimiter;
        this.addresses = addresses;
        this.accessLog = accessLog;
        this.router = router;
        this.rateLimiter = rateLimiter;
        this.largestBodyLimit = ExchangeHandler.largestBodyLimit(limits.maxBodySize(), router.routes());
    }

    @Override
    protected void initChannel(Channel ch) {
        state.add(ch);
        ChannelPipeline p = ch.pipeline();
        addConnectionHandlers(p);
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

    /** HTTP/1.1 framing, strict, then one request at a time with keep-alive. */
    private void addHttp1Handlers(ChannelPipeline p) {
        ServerCodec.addTo(p, limits.maxRequestLine(), limits.maxHeaderSize());
        p.addLast(ClientPipeline.FRAMING, new HttpFramingHandler(limits.maxHeaderCount(), largestBodyLimit));
        p.addLast(ClientPipeline.KEEPALIVE, new KeepAliveHandler(limits.keepaliveRequests(), state));
    }

    /** The request's record and access log, routing, rate limiting, then the responder. */
    private void addPorticoHandlers(ChannelPipeline p) {
        p.addLast(ClientPipeline.ACCESS_LOG, new RequestContextHandler(addresses, accessLog, false));
        p.addLast(ClientPipeline.ROUTE, new RouteHandler(router));
        ChannelHandler limiter = rateLimiter.get();
        if (limiter != null) {
            p.addLast(ClientPipeline.RATE_LIMIT, limiter);
        }
        p.addLast(ClientPipeline.EXCHANGE, new ExchangeHandler(limits.maxBodySize()));
    }
}
