package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2ChannelDuplexHandler;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import javax.net.ssl.SSLException;

/**
 * One HTTP/2 connection of the load generator and its {@code -m} stream slots ({@link H2Stream}). Over https the
 * connection asks ALPN for {@code h2} and refuses to go on without it; over http it speaks h2c with prior knowledge.
 * Frames go through Netty's {@code Http2FrameCodec}; this class keeps no per-request object of its own: a frame
 * finds its slot by a scan of the {@code -m} slots (small), and the request headers are the template's, shared.
 *
 * <p>Slots that want to send while the connection is down wait in {@link #waiting}; the first one opens it. A
 * connection that fails fails its slots' requests (each counted once), and they reconnect after the driver's
 * back-off. A GOAWAY closes the connection: the run's next requests open a new one. Lives on its driver's loop.
 */
final class H2Connection {

    private final Bootstrap bootstrap;
    private final InetSocketAddress localAddress;
    private final LoopStats stats;
    private final ClientTls tls;
    private final H2Stream[] streams;
    private final ArrayDeque<H2Stream> waiting = new ArrayDeque<>();
    private Channel channel;
    /** Set once the connection carries streams (after the TLS handshake and ALPN, or at once for h2c). */
    private Frames frames;
    private boolean connecting;
    private long connectStartNs;
    private long handshakeStartNs;

    H2Connection(LoopDriver driver, Bootstrap bootstrap, InetSocketAddress localAddress, LoopStats stats,
            ClientTls tls, int streamCount) {
        this.bootstrap = bootstrap;
        this.localAddress = localAddress;
        this.stats = stats;
        this.tls = tls;
        this.streams = new H2Stream[streamCount];
        for (int i = 0; i < streamCount; i++) {
            streams[i] = new H2Stream(this, driver, stats);
        }
    }

    List<H2Stream> streams() {
        return List.of(streams);
    }

    /** {@code s} has a request to send: on a new stream now when the connection is up, else once it is. */
    void submit(H2Stream s, long nowNs) {
        if (frames != null && channel != null && channel.isActive()) {
            write(s, nowNs, 0);
            channel.flush();
            return;
        }
        waiting.add(s);
        if (!connecting) {
            connect(s.template(), nowNs);
        }
    }

    private void connect(RequestTemplate template, long nowNs) {
        closeChannel();
        connecting = true;
        connectStartNs = nowNs;
        InetSocketAddress address = template.address();
        ChannelFuture f = localAddress == null ? bootstrap.connect(address) : bootstrap.connect(address, localAddress);
        f.addListener((ChannelFuture done) -> {
            try {
                connected(done, template.target());
            } catch (Throwable t) {
                setupFailed(ErrorClass.CLIENT_OTHER, t);
            }
        });
    }

    private void connected(ChannelFuture done, RequestTarget target) {
        if (!done.isSuccess()) {
            setupFailed(ErrorClassifier.connectFailure(done.cause()), done.cause());
            return;
        }
        if (waiting.isEmpty()) { // every slot gave up meanwhile (end of run)
            connecting = false;
            done.channel().close();
            return;
        }
        channel = done.channel();
        stats.connectionOpened();
        if (tls != null && target.secure()) {
            handshakeStartNs = System.nanoTime();
            channel.pipeline().addLast("tls", tls.newHandler(channel.alloc(), target));
            channel.pipeline().addLast("alpn", new HandshakeWatcher(channel));
        } else {
            ready(-1, "HTTP/2 (h2c, prior knowledge)");
        }
    }

    /** The connection can carry streams: the codec goes in, the waiting slots go out. */
    private void ready(long handshakeNs, String protocol) {
        connecting = false;
        handshakeStartNs = 0;
        frames = new Frames(channel);
        channel.pipeline().addLast("h2", Http2FrameCodecBuilder.forClient()
                .encoderEnforceMaxConcurrentStreams(true) // -m above the server's limit queues, is not refused
                .build());
        channel.pipeline().addLast("client", frames);
        long now = System.nanoTime();
        long setupNs = now - connectStartNs;
        stats.connectionReady(handshakeNs, stats.protocol() != null ? null : protocol);
        while (!waiting.isEmpty()) {
            write(waiting.poll(), now, setupNs);
        }
        channel.flush();
    }

    private void write(H2Stream s, long nowNs, long setupNs) {
        RequestTemplate t = s.template();
        Http2FrameStream stream = frames.newStream();
        s.written(stream, nowNs, setupNs);
        boolean body = t.target().body().length > 0;
        channel.write(new DefaultHttp2HeadersFrame(t.h2Headers(), !body).stream(stream), channel.voidPromise());
        if (body) {
            channel.write(new DefaultHttp2DataFrame(t.h2Body(), true).stream(stream), channel.voidPromise());
        }
    }

    /** Gives up on a stream whose request timed out; the connection goes on. */
    void cancel(Http2FrameStream stream) {
        if (stream != null && frames != null && channel != null && channel.isActive()) {
            channel.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.CANCEL).stream(stream),
                    channel.voidPromise());
        }
    }

    /** A slot waiting for this connection checks that its setup (the TLS handshake) is not stuck. */
    void checkSetup(long nowNs, long timeoutNs) {
        if (connecting && handshakeStartNs != 0 && nowNs - handshakeStartNs >= timeoutNs) {
            setupFailed(ErrorClass.TLS_HANDSHAKE, new SSLException("handshake timed out"));
        }
    }

    /** {@code s} is done for now; the connection closes once none of its slots has a request in flight. */
    void retire(H2Stream s) {
        waiting.remove(s);
        for (H2Stream other : streams) {
            if (other.inFlight()) {
                return;
            }
        }
        closeChannel();
    }

    private void closeChannel() {
        frames = null;
        handshakeStartNs = 0;
        if (channel != null) {
            connecting = false; // a handshake given up on; a TCP connect in progress (no channel yet) still ends

            Channel c = channel;
            channel = null;
            c.close();
        }
    }

    /** The connection could not be set up: each waiting slot's request fails once. */
    private void setupFailed(ErrorClass error, Throwable cause) {
        connecting = false;
        closeChannel();
        H2Stream[] failed = waiting.toArray(new H2Stream[0]);
        waiting.clear();
        for (H2Stream s : failed) {
            if (s.inFlight()) {
                s.failed(error, cause, true);
            }
        }
    }

    /** The connection is gone: every request written on it fails once. */
    private void lost(ErrorClass error, Throwable cause) {
        closeChannel();
        for (H2Stream s : streams) {
            if (s.inFlight() && s.started()) {
                s.failed(error, cause, true);
            }
        }
        if (!waiting.isEmpty() && !connecting) {
            connect(waiting.peek().template(), System.nanoTime());
        }
    }

    private H2Stream slotOf(Http2FrameStream stream) {
        for (H2Stream s : streams) {
            if (s.stream() == stream) {
                return s;
            }
        }
        return null; // a stream given up on (timeout, end of run)
    }

    /** Waits for the TLS handshake, then insists on h2. */
    private final class HandshakeWatcher extends ChannelInboundHandlerAdapter {

        private final Channel owner;

        HandshakeWatcher(Channel owner) {
            this.owner = owner;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (!(evt instanceof SslHandshakeCompletionEvent done)) {
                ctx.fireUserEventTriggered(evt);
                return;
            }
            ctx.pipeline().remove(this);
            if (owner != channel || !connecting) {
                return;
            }
            long handshakeNs = System.nanoTime() - handshakeStartNs;
            if (!done.isSuccess()) {
                setupFailed(ErrorClass.TLS_HANDSHAKE, ClientTls.explain(done.cause()));
                return;
            }
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            String alpn = ssl.applicationProtocol();
            if (!ApplicationProtocolNames.HTTP_2.equals(alpn)) {
                setupFailed(ErrorClass.TLS_HANDSHAKE, new SSLException("ALPN: the server did not select h2 ("
                        + (alpn == null ? "no protocol" : alpn) + "); it may not speak HTTP/2 over TLS"));
                return;
            }
            ready(handshakeNs, "HTTP/2 over " + ClientTls.describe(ssl));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (owner == channel && connecting) {
                setupFailed(ErrorClass.TLS_HANDSHAKE, ClientTls.explain(cause));
            } else {
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (owner == channel && connecting) {
                setupFailed(ErrorClass.TLS_HANDSHAKE, new SSLException("closed during the handshake"));
            }
            ctx.fireChannelInactive();
        }
    }

    /** The frames of one connection, after the codec. */
    private final class Frames extends Http2ChannelDuplexHandler {

        private final Channel owner;

        Frames(Channel owner) {
            this.owner = owner;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (owner != channel) {
                    return;
                }
                if (msg instanceof Http2HeadersFrame h) {
                    H2Stream s = slotOf(h.stream());
                    if (s != null) {
                        s.headers(h.headers(), h.isEndStream(), System.nanoTime());
                    }
                } else if (msg instanceof Http2DataFrame d) {
                    H2Stream s = slotOf(d.stream());
                    int bytes = d.content().readableBytes();
                    if (!d.isEndStream() && d.initialFlowControlledBytes() > 0) {
                        // hand the window back as soon as the bytes are counted (the codec sends it on flush)
                        ctx.write(new DefaultHttp2WindowUpdateFrame(d.initialFlowControlledBytes()).stream(d.stream()),
                                ctx.voidPromise());
                    }
                    if (s != null) {
                        s.data(bytes, d.isEndStream(), System.nanoTime());
                    }
                } else if (msg instanceof Http2ResetFrame r) {
                    H2Stream s = slotOf(r.stream());
                    if (s != null) {
                        s.failed(ErrorClass.RESET, new java.io.IOException("stream reset by the server: "
                                + Http2Error.valueOf(r.errorCode())), false);
                    }
                } else if (msg instanceof Http2GoAwayFrame g) {
                    lost(ErrorClass.PREMATURE_CLOSE, new java.io.IOException("GOAWAY from the server: "
                            + Http2Error.valueOf(g.errorCode())));
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush(); // window updates and the next requests of the slots answered in this read
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (owner == channel) {
                lost(ErrorClassifier.ioFailure(cause), cause);
            } else {
                ctx.close();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (owner == channel) {
                lost(ErrorClass.PREMATURE_CLOSE, null);
            }
        }
    }
}
