package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import java.net.InetSocketAddress;

/**
 * One virtual client: one HTTP/1.1 connection, one request in flight at a time, no pipelining. Lives on its
 * driver's event loop. Reconnects when the connection is gone (no keep-alive, server close, error).
 *
 * <p>It speaks raw bytes, like wrk: the request is the template's pre-encoded bytes (one view per connection,
 * rewound for each send) and the response is framed by a {@link ResponseParser} over the received buffers, so a
 * request/response pair costs no HTTP object, header table or String on the client side.
 *
 * <p>For https an {@link SslHandler} sits below it in the pipeline: the bytes written and read here are the same,
 * and the first request leaves once the handshake is done (the handshake is part of the connect time, and is
 * recorded on its own once per connection).
 */
@ChannelHandler.Sharable // re-added to each new connection of this client, always on the same loop
final class VirtualClient extends ChannelInboundHandlerAdapter implements LoadClient {

    private final LoopDriver driver;
    private final Bootstrap bootstrap;
    private final InetSocketAddress localAddress;
    private final LoopStats stats;
    private final boolean keepAlive;
    private final ClientTls tls;
    private final ResponseParser parser = new ResponseParser();
    private long repetitionsLeft;
    /** When the TCP connection of a TLS handshake in progress was up; 0 when no handshake is in progress. */
    private long handshakeStartNs;
    private long connectStartNs;

    private Channel channel;
    private InetSocketAddress connectedTo;
    private RequestTemplate template;
    /** The request bytes written on this connection: a view of {@link #viewOf}'s bytes, rewound per send. */
    private ByteBuf requestView;
    private RequestTemplate viewOf;
    /** Received bytes of a line that a read cut in two, kept for the next read; null almost always. */
    private ByteBuf pending;
    private boolean inFlight;
    private long intendedNs;
    private long connectNs;
    private long writeNs;
    private long firstByteNs;

    VirtualClient(LoopDriver driver, Bootstrap bootstrap, InetSocketAddress localAddress, LoopStats stats,
            boolean keepAlive, ClientTls tls) {
        this.driver = driver;
        this.tls = tls;
        this.bootstrap = bootstrap;
        this.localAddress = localAddress;
        this.stats = stats;
        this.keepAlive = keepAlive;
    }

    boolean inFlight() {
        return inFlight;
    }

    @Override
    public long repetitionsLeft() {
        return repetitionsLeft;
    }

    @Override
    public void repetitionsLeft(long left) {
        repetitionsLeft = left;
    }

    /**
     * Sends {@code request}; latency counts from {@code intendedNs} (now for the closed loop, due time for open).
     * {@code nowNs} is the caller's current System.nanoTime(), so a send reads the clock no more than it must.
     */
    @Override
    public void send(RequestTemplate request, long intendedNs, long nowNs) {
        this.template = request;
        this.intendedNs = intendedNs;
        this.inFlight = true;
        this.connectNs = 0;
        this.firstByteNs = 0;
        InetSocketAddress address = request.address();
        if (channel != null && channel.isActive()
                && (connectedTo == address || connectedTo.equals(address))) {
            write(nowNs);
            return;
        }
        closeChannel();
        long connectStart = nowNs;
        ChannelFuture f = localAddress == null ? bootstrap.connect(address) : bootstrap.connect(address, localAddress);
        f.addListener((ChannelFuture done) -> {
            try {
                connected(done, connectStart, address);
            } catch (Throwable t) {
                // e.g. a class that could not load while out of file descriptors: count it, keep going
                if (inFlight) {
                    fail(ErrorClass.CLIENT_OTHER, t, true);
                }
            }
        });
    }

    private void connected(ChannelFuture done, long connectStart, InetSocketAddress address) {
        if (!inFlight) {
            done.channel().close();
            return;
        }
        if (!done.isSuccess()) {
            fail(ErrorClassifier.connectFailure(done.cause()), done.cause(), true);
            return;
        }
        channel = done.channel();
        connectedTo = address;
        requestView = null; // a fresh view per connection: nothing of a closed one is ever rewound
        stats.connectionOpened();
        if (tls != null && template.target().secure()) {
            connectStartNs = connectStart;
            handshakeStartNs = System.nanoTime();
            channel.pipeline().addLast("tls", tls.newHandler(channel.alloc(), template.target()));
            channel.pipeline().addLast("client", this);
            return; // the request leaves when the handshake is done (userEventTriggered)
        }
        channel.pipeline().addLast("client", this);
        long now = System.nanoTime();
        connectNs = now - connectStart;
        stats.connectionReady(-1, "HTTP/1.1");
        write(now);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (!(evt instanceof SslHandshakeCompletionEvent done) || ctx.channel() != channel || handshakeStartNs == 0) {
            ctx.fireUserEventTriggered(evt);
            return;
        }
        long now = System.nanoTime();
        long started = handshakeStartNs;
        handshakeStartNs = 0;
        if (!inFlight) {
            return;
        }
        if (!done.isSuccess()) {
            fail(ErrorClass.TLS_HANDSHAKE, ClientTls.explain(done.cause()), true);
            return;
        }
        connectNs = now - connectStartNs;
        stats.connectionReady(now - started, stats.protocol() != null ? null
                : "HTTP/1.1 over " + ClientTls.describe(ctx.pipeline().get(SslHandler.class)));
        write(now);
    }

    private void write(long nowNs) {
        writeNs = nowNs;
        parser.reset(template.head());
        if (requestView == null || viewOf != template || requestView.isReadable()) {
            // readable: a server answered before reading the whole last request, which may still be queued
            requestView = template.newView();
            viewOf = template;
        } else {
            requestView.readerIndex(0); // the last send was fully written
        }
        channel.writeAndFlush(requestView, channel.voidPromise());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (inFlight && ctx.channel() == channel) {
                read(ctx, in);
            }
        } catch (MalformedResponseException e) {
            releasePending();
            fail(ErrorClass.OTHER, e, false);
        } finally {
            in.release();
        }
    }

    private void read(ChannelHandlerContext ctx, ByteBuf in) throws MalformedResponseException {
        long now = System.nanoTime();
        if (firstByteNs == 0) {
            firstByteNs = now;
        }
        ByteBuf buf = in;
        if (pending != null) {
            buf = pending.writeBytes(in);
        }
        if (parser.parse(buf)) {
            releasePending(); // anything after the response is not an answer to anything: dropped
            complete(now);
        } else if (buf == in && in.isReadable()) {
            pending = ctx.alloc().heapBuffer(in.readableBytes()).writeBytes(in);
        } else if (buf == pending) {
            pending.discardReadBytes();
        }
    }

    private void complete(long now) {
        inFlight = false;
        stats.response(parser.status(), now - intendedNs, connectNs, firstByteNs - writeNs, parser.bodyBytes());
        if (!keepAlive || !parser.keepAlive()) {
            closeChannel();
        }
        driver.onIdle(this, false);
    }

    /** Called by the driver's sweep: records a request that outlived its timeout at its timeout. */
    @Override
    public void checkTimeout(long nowNs, long timeoutNs) {
        if (inFlight && handshakeStartNs != 0 && channel != null && nowNs - handshakeStartNs >= timeoutNs) {
            fail(ErrorClass.TLS_HANDSHAKE, new javax.net.ssl.SSLException("handshake timed out"), true);
            return;
        }
        if (inFlight && writeNs != 0 && channel != null && nowNs - writeNs >= timeoutNs) {
            inFlight = false;
            stats.timeout(writeNs + timeoutNs - intendedNs);
            closeChannel();
            driver.onIdle(this, true);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (inFlight && ctx.channel() == channel) {
            boolean handshaking = handshakeStartNs != 0;
            handshakeStartNs = 0;
            if (handshaking) {
                fail(ErrorClass.TLS_HANDSHAKE, ClientTls.explain(cause), true);
            } else {
                fail(ErrorClassifier.ioFailure(cause), cause, false);
            }
        } else {
            ctx.close();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (inFlight && ctx.channel() == channel) {
            if (parser.closeCompletes()) {
                complete(System.nanoTime()); // a body delimited by the close: this is its end
            } else {
                boolean handshaking = handshakeStartNs != 0;
                handshakeStartNs = 0;
                fail(handshaking ? ErrorClass.TLS_HANDSHAKE : ErrorClass.PREMATURE_CLOSE, null, handshaking);
            }
        }
        if (ctx.channel() == channel) {
            channel = null;
            releasePending();
        }
    }

    private void fail(ErrorClass error, Throwable cause, boolean connectFailed) {
        inFlight = false;
        writeNs = 0;
        stats.error(error, cause);
        closeChannel();
        driver.onIdle(this, connectFailed || error.clientSide());
    }

    /** Closes the connection (end of run, or no keep-alive). */
    @Override
    public void closeChannel() {
        releasePending();
        handshakeStartNs = 0;
        if (channel != null) {
            Channel c = channel;
            channel = null;
            c.close();
        }
    }

    private void releasePending() {
        if (pending != null) {
            pending.release();
            pending = null;
        }
    }

    /** Ends an unfinished request at the end of the run as a timeout at its current age (never dropped). */
    @Override
    public void abandon(long nowNs) {
        if (inFlight) {
            inFlight = false;
            stats.timeout(nowNs - intendedNs);
        }
        closeChannel();
    }
}
