package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.portico.compress.ResponseCompression;
import io.portico.config.Http2Config;
import io.portico.config.LimitsConfig;
import io.portico.config.LocationConfig;
import io.portico.config.ProxyProtocolConfig;
import io.portico.metrics.LocationMeters;
import io.portico.metrics.PorticoMetrics;
import io.portico.metrics.ProtocolMeters;
import io.portico.metrics.AccessLog;
import io.portico.route.ClientPipeline;
import io.portico.route.Route;
import io.portico.route.HostRouter;
import io.portico.tls.PlainHttpRefusal;
import io.portico.tls.ServerTls;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A client connection's pipeline, in the order a request passes through it: these methods are the whole request
 * path. A plain HTTP/1.1 connection gets its whole pipeline at once; a TLS one gets its HTTP stages once ALPN has
 * chosen HTTP/1.1 or HTTP/2 ({@link AlpnHandler}), and a plain one that speaks h2c once its first bytes showed
 * which ({@link H2cPrefaceDetector}). On HTTP/2 each stream is a child channel with the same Portico stages as an
 * HTTP/1.1 connection ({@link #initStream}). Handlers are never added or removed per request.
 */
final class ClientChannelInitializer extends ChannelInitializer<Channel> {
    /**
     * The bytes of TLVs a PROXY v2 header may carry: HAProxy's SSL, authority and unique-id TLVs and a cloud
     * balancer's own take a few hundred; a longer header is refused rather than buffered up to 64 KiB.
     */
    private static final int MAX_PROXY_TLVS = 4096;
    private final LimitsConfig limits;
    private final ServerState state;
    private final ConnectionLimiter connectionLimiter;
    private final ClientAddresses addresses;
    private final AccessLog accessLog;
    private final HostRouter router;
    private final Supplier<ChannelHandler> rateLimiter;
    private final Function<LocationConfig, LocationMeters> meters;
    private final PorticoMetrics metrics;
    /** The listener's TLS, or null for plain HTTP. */
    private final ServerTls tls;
    /** HTTP/2's settings when this listener speaks it, else null. */
    private final Http2Config http2;
    /** A Content-Length over this is refused before routing; a location's own limit after it. */
    private final long largestBodyLimit;
    /** The listener's PROXY protocol, or null when connections start with HTTP or TLS. */
    private final ProxyProtocolConfig proxyProtocol;
    private final ProxyProtocolRefusals proxyRefusals;
    /** On-the-fly compression, when some location of this listener enables it. */
    private final ResponseCompression compression;
    // One listener each for every connection and stream, not a closure apiece.
    private final ChannelFutureListener http1Closed;
    private final ChannelFutureListener http2Closed;
    private final ChannelFutureListener streamClosed;

    ClientChannelInitializer(LimitsConfig limits, ServerState state, ConnectionLimiter connectionLimiter,
            ClientAddresses addresses, AccessLog accessLog, HostRouter router, Supplier<ChannelHandler> rateLimiter,
            Function<LocationConfig, LocationMeters> meters, PorticoMetrics metrics, ServerTls tls, Http2Config http2) {
        this(limits, state, connectionLimiter, addresses, accessLog, router, rateLimiter, meters, metrics, tls, http2,
                null);
    }

    ClientChannelInitializer(LimitsConfig limits, ServerState state, ConnectionLimiter connectionLimiter,
            ClientAddresses addresses, AccessLog accessLog, HostRouter router, Supplier<ChannelHandler> rateLimiter,
            Function<LocationConfig, LocationMeters> meters, PorticoMetrics metrics, ServerTls tls, Http2Config http2,
            ProxyProtocolConfig proxyProtocol) {
        this.limits = limits;
        this.state = state;
        this.connectionLimiter = connectionLimiter;
        this.addresses = addresses;
        this.accessLog = accessLog;
        this.router = router;
        this.rateLimiter = rateLimiter;
        this.meters = meters;
        this.metrics = metrics;
        this.tls = tls;
        this.http2 = http2;
        this.largestBodyLimit = ExchangeHandler.largestBodyLimit(limits.maxBodySize(), router.routes());
        this.proxyProtocol = proxyProtocol;
        this.proxyRefusals = proxyProtocol == null ? null : ProxyProtocolHandler.refusals();
        this.compression = ResponseCompression.create(router.routes().stream().map(Route::location).toList());
        ProtocolMeters protocols = metrics.protocols();
        this.http1Closed = f -> protocols.connectionClosed(false);
        this.http2Closed = f -> protocols.connectionClosed(true);
        this.streamClosed = f -> protocols.streamClosed();
    }

    @Override
    protected void initChannel(Channel ch) {
        state.add(ch);
        metrics.connectionAccepted();
        ChannelPipeline p = ch.pipeline();
        p.addLast(ClientPipeline.CONNECTIONS, connectionLimiter);
        if (proxyProtocol != null) {
            // Before TLS: a balancer's PROXY header precedes the ClientHello.
            p.addLast(ClientPipeline.PROXY_DECODER, new HAProxyMessageDecoder(MAX_PROXY_TLVS));
            p.addLast(ClientPipeline.PROXY, new ProxyProtocolHandler(proxyProtocol, proxyRefusals));
        }
        if (tls != null) {
            // Plain HTTP refused with a 400 of its own; SNI, which becomes the chosen SslHandler; a failed handshake
            // closed quietly; then ALPN adds the HTTP stages of the protocol chosen.
            p.addLast(ClientPipeline.TLS_PLAIN_REFUSAL, new PlainHttpRefusal());
            p.addLast(ClientPipeline.TLS, tls.newHandler(ch.alloc()));
            p.addLast(ClientPipeline.TLS_FAILURES, metrics.tlsHandler());
            p.addLast(ClientPipeline.ALPN, new AlpnHandler(this));
        } else if (http2 != null) {
            p.addLast(ClientPipeline.H2C_PREFACE, new H2cPrefaceDetector(this));
        } else {
            addHttp1(p);
        }
    }

    /** HTTP/1.1: the client timers, the strict codec, one request at a time with keep-alive, then Portico's. */
    void addHttp1(ChannelPipeline p) {
        metrics.protocols().connectionOpened(false);
        p.channel().closeFuture().addListener(http1Closed);
        p.addLast(ClientPipeline.TIMEOUTS, new ClientTimeoutHandler(
                limits.keepaliveTimeout(), limits.clientHeaderTimeout(),
                limits.clientBodyTimeout(), limits.sendTimeout(), limits.clientBodyMinRate()));
        ServerCodec.addTo(p, limits.maxRequestLine(), limits.maxHeaderSize());
        if (compression.enabled()) {
            // Right above the codec: every response passes it last, files sent as chunks included.
            p.addLast(ClientPipeline.COMPRESS, compression.newHandler(false));
        }
        if (tls != null || compression.enabled()) {
            // A file cannot go by sendfile through TLS, nor through a compressor: the static responder writes it
            // as chunks (FileChunks) then; uncompressed files on a plain connection still go by sendfile.
            p.addLast(ClientPipeline.CHUNKED_WRITES, new ChunkedWriteHandler());
        }
        p.addLast(ClientPipeline.FRAMING, new HttpFramingHandler(limits.maxHeaderCount(), largestBodyLimit));
        p.addLast(ClientPipeline.KEEPALIVE, new KeepAliveHandler(limits.keepaliveRequests(), state));
        addPorticoHandlers(p, false);
    }

    /** HTTP/2: the connection's idle close, Netty's frame codec with Portico's limits, one child channel a stream. */
    void addHttp2(ChannelPipeline p) {
        metrics.protocols().connectionOpened(true);
        p.channel().closeFuture().addListener(http2Closed);
        Http2Connections.addTo(p, http2, limits.keepaliveTimeout(), this::initStream);
    }

    /**
     * One HTTP/2 stream: Netty's codec turns its frames into HTTP/1.1 messages, so the framing checks, routing,
     * access rules, rate limits and responders are those of an HTTP/1.1 connection; the body and send timeouts are
     * the stream's own ({@link StreamTimeoutHandler}). Files go as chunks (a stream
     * cannot sendfile); Date and Server come from {@link StreamHeaders}, the stream's end from the codec.
     */
    void initStream(Channel stream) {
        metrics.protocols().streamOpened();
        stream.closeFuture().addListener(streamClosed);
        ChannelPipeline p = stream.pipeline();
        p.addLast(ClientPipeline.H2_STREAM_CODEC, new Http2StreamFrameToHttpObjectCodec(true, false));
        p.addLast(ClientPipeline.TIMEOUTS, new StreamTimeoutHandler(limits.clientBodyTimeout(), limits.sendTimeout(),
                limits.clientBodyMinRate()));
        if (compression.enabled()) {
            p.addLast(ClientPipeline.COMPRESS, compression.newHandler(true));
        }
        p.addLast(ClientPipeline.CHUNKED_WRITES, new ChunkedWriteHandler());
        p.addLast(ClientPipeline.FRAMING, new HttpFramingHandler(limits.maxHeaderCount(), largestBodyLimit));
        p.addLast(ClientPipeline.H2_STREAM_HEADERS, StreamHeaders.INSTANCE);
        addPorticoHandlers(p, true);
    }

    /** The request's record and access log, routing, rate limiting, then the responder. */
    private void addPorticoHandlers(ChannelPipeline p, boolean onStream) {
        p.addLast(ClientPipeline.ACCESS_LOG, new RequestContextHandler(addresses, accessLog, meters, tls != null,
                onStream));
        p.addLast(ClientPipeline.ROUTE, new RouteHandler(router));
        ChannelHandler limiter = rateLimiter.get();
        if (limiter != null) {
            p.addLast(ClientPipeline.RATE_LIMIT, limiter);
        }
        p.addLast(ClientPipeline.EXCHANGE, new ExchangeHandler(limits.maxBodySize()));
    }
}
