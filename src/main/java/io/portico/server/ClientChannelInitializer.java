package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.portico.compress.ResponseCompression;
import io.portico.config.Http2Config;
import io.portico.config.LimitsConfig;
import io.portico.config.ProxyProtocolConfig;
import io.portico.connection.ClientPipeline;
import io.portico.exchange.Route;
import io.portico.metrics.LocationMeters;
import io.portico.metrics.ProtocolMeters;
import io.portico.ratelimit.RateLimits;
import io.portico.route.HostRouter;
import io.portico.route.RouteHandler;
import io.portico.tls.PlainHttpRefusal;
import io.portico.tls.ServerTls;
import io.portico.transport.Transport;

/**
 * A client connection's pipeline, in the order a request passes through it: these methods are the whole request
 * path. A plain HTTP/1.1 connection gets its whole pipeline at once; a TLS one gets its HTTP stages once ALPN has
 * chosen HTTP/1.1 or HTTP/2 ({@link AlpnHandler}), and a plain one that speaks h2c once its first bytes showed
 * which ({@link H2cPrefaceDetector}). On HTTP/2 each stream is a child channel with the same Portico stages as an
 * HTTP/1.1 connection ({@link #initStream}). Handlers are never added or removed per request.
 *
 * <p>One instance per listener of each {@link Generation}: the connection's stages take that generation's limits
 * and TLS; each of its requests is then served by whichever generation is current at its head.
 */
final class ClientChannelInitializer {
    /**
     * The bytes of TLVs a PROXY v2 header may carry: HAProxy's SSL, authority and unique-id TLVs and a cloud
     * balancer's own take a few hundred; a longer header is refused rather than buffered up to 64 KiB.
     */
    private static final int MAX_PROXY_TLVS = 4096;
    private final ServerParts parts;
    /** The generation this instance belongs to: its requests' when a reload has removed this listener. */
    private final Generation generation;
    private final ListenerKey address;
    private final LimitsConfig limits;
    private final HostRouter router;
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

    ClientChannelInitializer(ServerParts parts, Generation generation, ListenerKey address, HostRouter router,
            ServerTls tls, Http2Config http2, ProxyProtocolConfig proxyProtocol) {
        this.parts = parts;
        this.generation = generation;
        this.address = address;
        this.limits = generation.config.limits();
        this.router = router;
        this.tls = tls;
        this.http2 = http2;
        this.largestBodyLimit = ExchangeHandler.largestBodyLimit(limits.maxBodySize(), router.routes());
        this.proxyProtocol = proxyProtocol;
        this.proxyRefusals = proxyProtocol == null ? null : ProxyProtocolHandler.refusals();
        this.compression = ResponseCompression.create(router.routes().stream().map(Route::location).toList());
        ProtocolMeters protocols = parts.metrics().protocols();
        this.http1Closed = f -> protocols.connectionClosed(false);
        this.http2Closed = f -> protocols.connectionClosed(true);
        this.streamClosed = f -> protocols.streamClosed();
    }

    HostRouter router() {
        return router;
    }

    ServerTls tls() {
        return tls;
    }

    /**
     * The generation a request arriving now is served by: the current one, or this connection's own when the
     * current one no longer has its listener (removed by a reload, draining).
     */
    Generation generationOfRequest() {
        Generation current = parts.current().get();
        return current == generation || current.listener(address) != null ? current : generation;
    }

    /** The meters of requests refused before routing: those of location "". */
    private LocationMeters unrouted() {
        return parts.metrics().location("", "");
    }

    void initChannel(Channel ch) {
        parts.state().add(ch);
        parts.metrics().connectionAccepted();
        ChannelPipeline p = ch.pipeline();
        Transport.of(ch).addCloseHandler(p, ClientPipeline.URING_CLOSE);
        p.addLast(ClientPipeline.CONNECTIONS, parts.connectionLimiter());
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
            p.addLast(ClientPipeline.TLS_FAILURES, parts.metrics().tlsHandler());
            p.addLast(ClientPipeline.ALPN, new AlpnHandler(this));
        } else if (http2 != null) {
            p.addLast(ClientPipeline.H2C_PREFACE, new H2cPrefaceDetector(this));
        } else {
            addHttp1(p);
        }
    }

    /** HTTP/1.1: the client timers, the strict codec, one request at a time with keep-alive, then Portico's. */
    void addHttp1(ChannelPipeline p) {
        parts.metrics().protocols().connectionOpened(false);
        p.channel().closeFuture().addListener(http1Closed);
        p.addLast(ClientPipeline.TIMEOUTS, new ClientTimeoutHandler(
                limits.keepaliveTimeout(), limits.clientHeaderTimeout(),
                limits.clientBodyTimeout(), limits.sendTimeout(), limits.clientBodyMinRate(), unrouted()));
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
        p.addLast(ClientPipeline.FRAMING, new HttpFramingHandler(limits.maxHeaderCount(), largestBodyLimit,
                unrouted()));
        p.addLast(ClientPipeline.KEEPALIVE, new KeepAliveHandler(limits.keepaliveRequests(), parts.state()));
        addPorticoHandlers(p, false);
    }

    /** HTTP/2: the connection's idle close, Netty's frame codec with Portico's limits, one child channel a stream. */
    void addHttp2(ChannelPipeline p) {
        parts.metrics().protocols().connectionOpened(true);
        p.channel().closeFuture().addListener(http2Closed);
        Http2Connections.addTo(p, http2, limits.keepaliveTimeout(), this::initStream);
    }

    /**
     * One HTTP/2 stream: Netty's codec turns its frames into HTTP/1.1 messages, so the framing checks, routing,
     * access rules, rate limits and responders are those of an HTTP/1.1 connection; the body and send timeouts are
     * the stream's own ({@link StreamTimeoutHandler}). Files go as chunks (a stream
     * cannot sendfile); the exchange's moments, Date and Server come from {@link StreamExchangeHandler}, the
     * stream's end from the codec.
     */
    void initStream(Channel stream) {
        parts.metrics().protocols().streamOpened();
        stream.closeFuture().addListener(streamClosed);
        ChannelPipeline p = stream.pipeline();
        p.addLast(ClientPipeline.H2_STREAM_CODEC, new Http2StreamFrameToHttpObjectCodec(true, false));
        p.addLast(ClientPipeline.TIMEOUTS, new StreamTimeoutHandler(limits.clientBodyTimeout(), limits.sendTimeout(),
                limits.clientBodyMinRate()));
        if (compression.enabled()) {
            p.addLast(ClientPipeline.COMPRESS, compression.newHandler(true));
        }
        p.addLast(ClientPipeline.CHUNKED_WRITES, new ChunkedWriteHandler());
        p.addLast(ClientPipeline.FRAMING, new HttpFramingHandler(limits.maxHeaderCount(), largestBodyLimit,
                unrouted()));
        p.addLast(ClientPipeline.H2_STREAM_HEADERS, new StreamExchangeHandler());
        addPorticoHandlers(p, true);
    }

    /**
     * The request's record and access log (which picks the request's generation), routing, rate limiting, then
     * the responder. The rate-limit stage is there whenever the server limits anything in any configuration: a
     * reload may add limits that the next request on an open connection must meet.
     */
    private void addPorticoHandlers(ChannelPipeline p, boolean onStream) {
        p.addLast(ClientPipeline.ACCESS_LOG, new RequestContextHandler(this::generationOfRequest, address,
                parts.accessLog(), tls != null, onStream));
        p.addLast(ClientPipeline.ROUTE, new RouteHandler());
        if (generation.rateLimits != null) {
            p.addLast(ClientPipeline.RATE_LIMIT,
                    RateLimits.newHandler(c -> ((RequestContext) c).generation().rateLimits));
        }
        p.addLast(ClientPipeline.EXCHANGE, new ExchangeHandler());
    }
}
