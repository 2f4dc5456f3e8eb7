package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;

/**
 * One virtual client: one HTTP/1.1 connection, one request in flight at a time, no pipelining. Lives on its
 * driver's event loop. Reconnects when the connection is gone (no keep-alive, server close, error).
 *
 * <p>It speaks raw bytes, like wrk: the request is the template's pre-encoded bytes (one view per connection,
 * rewound for each send) and the response is framed by a {@link ResponseParser} over the received buffers, so a
 * request/response pair costs no HTTP object, header table or String on the client side.
 */
@ChannelHandler.Sharable // re-added to each new connection of this client, always on the same loop
final class VirtualClient extends ChannelInboundHandlerAdapter {

    private final LoopDriver driver;
    private final Bootstrap bootstrap;
    private final InetSocketAddress localAddress;
    private final LoopStats stats;
    private final boolean keepAlive;
    private final ResponseParser parser = new ResponseParser();
    long repetitionsLeft;

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
            boolean keepAlive) {
        this.driver = driver;
        this.bootstrap = bootstrap;
        this.localAddress = localAddress;
        this.stats = stats;
        this.keepAlive = keepAlive;
    }

    boolean inFlight() {
        return inFlight;
    }

    /**
     * Sends {@code request}; latency counts from {@code intendedNs} (now for the closed loop, due time for open).
     * {@code nowNs} is the caller's current System.nanoTime(), so a send reads the clock no more than it must.
     */
    void send(RequestTemplate request, long intendedNs, long nowNs) {
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
        channel.pipeline().addLast("client", this);
        long now = System.nanoTime();
        connectNs = now - connectStart;
        stats.connectionOpened();
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
    void checkTimeout(long nowNs, long timeoutNs) {
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
            fail(ErrorClassifier.ioFailure(cause), cause, false);
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
                fail(ErrorClass.PREMATURE_CLOSE, null, false);
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
    void closeChannel() {
        releasePending();
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
    void abandon(long nowNs) {
        if (inFlight) {
            inFlight = false;
            stats.timeout(nowNs - intendedNs);
        }
        closeChannel();
    }
}
