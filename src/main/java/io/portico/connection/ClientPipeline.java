package io.portico.connection;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelPipeline;
import java.util.List;

/**
 * The names of the handlers of a client connection's pipeline, in order: the server builds the pipeline with them
 * (server.ClientChannelInitializer, the one place that assembles it), and the one change made to it later, a switch
 * of protocols ({@link #switchProtocols}), is made here by them.
 */
public final class ClientPipeline {
    /** io_uring only: shuts the sending side when a stuck send holds a close (transport.Transport#addCloseHandler). */
    public static final String URING_CLOSE = "uring-close";
    public static final String CONNECTIONS = "connections";
    /** proxy-protocol listeners only: Netty's PROXY header decoder and Portico's checks of it (both then removed). */
    public static final String PROXY_DECODER = "proxy-protocol-decoder";
    public static final String PROXY = "proxy-protocol";
    /** TLS listeners only: plain HTTP refused, then SNI (which replaces itself with the chosen SslHandler). */
    public static final String TLS_PLAIN_REFUSAL = "tls-plain-refusal";
    public static final String TLS = "tls";
    public static final String TLS_FAILURES = "tls-failures";
    /** TLS listeners: adds the HTTP/1.1 or HTTP/2 stages once the handshake has chosen (then removed). */
    public static final String ALPN = "alpn";
    /** Plain listeners with http2 = on: tells h2c's preface from HTTP/1.1 by the first bytes (then removed). */
    public static final String H2C_PREFACE = "h2c-preface";
    /** HTTP/2 connections: idle close, Netty's frame codec, and the multiplexer that makes a channel per stream. */
    public static final String H2_IDLE = "h2-idle";
    public static final String H2_CODEC = "h2";
    public static final String H2_STREAMS = "h2-streams";
    /** HTTP/2 connections: the end of the pipeline, where the codec's protocol errors stop (logged at debug). */
    public static final String H2_ERRORS = "h2-errors";
    /** An HTTP/2 stream's channel: frames to HTTP/1.1 messages and back, and the Date and Server headers. */
    public static final String H2_STREAM_CODEC = "h2-stream";
    public static final String H2_STREAM_HEADERS = "h2-stream-headers";
    public static final String TIMEOUTS = "timeouts";
    public static final String DECODER = "http";
    public static final String ENCODER = "http-encoder";
    /** Present only when some location compresses: responses compressed on the way out, above the codec. */
    public static final String COMPRESS = "compress";
    /**
     * TLS listeners, HTTP/2 streams, and plain listeners where some location compresses (a file to compress goes
     * as chunks): files as chunks, not by sendfile.
     */
    public static final String CHUNKED_WRITES = "chunked-writes";
    public static final String FRAMING = "framing";
    public static final String KEEPALIVE = "keepalive";
    public static final String ACCESS_LOG = "accesslog";
    public static final String ROUTE = "route";
    /** Present only when some location has a rate limit or a connection limit. */
    public static final String RATE_LIMIT = "ratelimit";
    public static final String EXCHANGE = "exchange";

    /** The HTTP handlers above the codec, with the client timers: a switch of protocols removes them first. */
    public static final List<String> HTTP_HANDLERS =
            List.of(TIMEOUTS, COMPRESS, CHUNKED_WRITES, FRAMING, KEEPALIVE, ACCESS_LOG, ROUTE, RATE_LIMIT, EXCHANGE);
    /** The codec, removed after them. */
    public static final List<String> CODEC = List.of(DECODER, ENCODER);

    private ClientPipeline() {}

    /**
     * A client connection stops speaking HTTP (a WebSocket upgrade the upstream accepted with 101, whose response has
     * been written): its HTTP stages go, with the client timers ({@code relay} has its own), then {@code relay} is
     * added and the codec goes last, so that bytes the decoder had buffered reach the relay in order. The channel's
     * reads are then the relay's ({@link ReadGate#onDemandOnly}), once it starts. Call on the channel's loop.
     */
    public static void switchProtocols(Channel client, ChannelHandler relay) {
        ChannelPipeline p = client.pipeline();
        for (String name : HTTP_HANDLERS) {
            if (p.context(name) != null) {
                p.remove(name);
            }
        }
        p.addLast("relay", relay);
        for (String name : CODEC) {
            if (p.context(name) != null) {
                p.remove(name);
            }
        }
    }
}
