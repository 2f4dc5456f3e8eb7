package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;

/**
 * One virtual client: one HTTP/1.1 connection, one request in flight at a time, no pipelining. Lives on its
 * driver's event loop. Reconnects when the connection is gone (no keep-alive, server close, error).
 */
@ChannelHandler.Sharable // re-added to each new connection of this client, always on the same loop
final class VirtualClient extends ChannelInboundHandlerAdapter {

    private final LoopDriver driver;
    private final Bootstrap bootstrap;
    private final InetSocketAddress localAddress;
    private final LoopStats stats;
    private final boolean keepAlive;
    long repetitionsLeft;

    private Channel channel;
    private ChannelHandlerContext rawContext;
    private RequestTemplate template;
    private boolean inFlight;
    private long intendedNs;
    private long connectNs;
    private long writeNs;
    private long firstByteNs;
    private int status;
    private long bytes;
    private boolean serverKeepAlive;

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

    /** Sends {@code request}; latency counts from {@code intendedNs} (now for the closed loop, due time for open). */
    void send(RequestTemplate request, long intendedNs) {
        this.template = request;
        this.intendedNs = intendedNs;
        this.inFlight = true;
        this.connectNs = 0;
        this.status = 0;
        this.bytes = 0;
        this.firstByteNs = 0;
        if (channel != null && channel.isActive() && channel.remoteAddress().equals(request.address())) {
            write();
            return;
        }
        closeChannel();
        long connectStart = System.nanoTime();
        ChannelFuture f = localAddress == null ? bootstrap.connect(request.address())
                : bootstrap.connect(request.address(), localAddress);
        f.addListener((ChannelFuture done) -> {
            try {
                connected(done, connectStart);
            } catch (Throwable t) {
                // e.g. a class that could not load while out of file descriptors: count it, keep going
                if (inFlight) {
                    fail(ErrorClass.CLIENT_OTHER, t, true);
                }
            }
        });
    }

    private void connected(ChannelFuture done, long connectStart) {
        if (!inFlight) {
            done.channel().close();
            return;
        }
        if (!done.isSuccess()) {
            fail(ErrorClassifier.connectFailure(done.cause()), done.cause(), true);
            return;
        }
        channel = done.channel();
        channel.pipeline().addLast(RawWrites.INSTANCE).addLast(newCodec(), this);
        rawContext = channel.pipeline().context(RawWrites.INSTANCE);
        connectNs = System.nanoTime() - connectStart;
        stats.connectionOpened();
        write();
    }

    /**
     * A client codec that does not validate the server's header names and values: a load generator only needs the
     * status, the framing and the keep-alive decision, and validation was a tenth of the client's CPU.
     */
    static HttpClientCodec newCodec() {
        HttpDecoderConfig config = new HttpDecoderConfig()
                .setHeadersFactory(DefaultHttpHeadersFactory.headersFactory().withValidation(false))
                .setTrailersFactory(DefaultHttpHeadersFactory.trailersFactory().withValidation(false));
        return new HttpClientCodec(config, false, false);
    }

    private void write() {
        writeNs = System.nanoTime();
        Object message = template.newMessage();
        if (message instanceof ByteBuf) {
            // pre-encoded bytes enter the pipeline below the codec, so its encoder never sees them
            rawContext.writeAndFlush(message, rawContext.voidPromise());
        } else {
            channel.writeAndFlush(message, channel.voidPromise());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (!inFlight || ctx.channel() != channel) {
                return;
            }
            if (msg instanceof HttpObject o && o.decoderResult().isFailure()) {
                fail(ErrorClass.OTHER, o.decoderResult().cause(), false);
                return;
            }
            if (msg instanceof HttpResponse response) {
                firstByteNs = System.nanoTime();
                status = response.status().code();
                serverKeepAlive = HttpUtil.isKeepAlive(response);
            }
            if (msg instanceof HttpContent content) {
                bytes += content.content().readableBytes();
                if (msg instanceof LastHttpContent && status >= 200) {
                    complete();
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void complete() {
        long now = System.nanoTime();
        inFlight = false;
        stats.response(status, now - intendedNs, connectNs, firstByteNs - writeNs, bytes);
        if (!keepAlive || !serverKeepAlive) {
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
            fail(ErrorClass.PREMATURE_CLOSE, null, false);
        }
        if (ctx.channel() == channel) {
            channel = null;
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
        if (channel != null) {
            Channel c = channel;
            channel = null;
            c.close();
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

    /** Marks where pre-encoded requests are written: between the socket and the HTTP codec. */
    @ChannelHandler.Sharable
    static final class RawWrites extends ChannelOutboundHandlerAdapter {
        static final RawWrites INSTANCE = new RawWrites();
    }
}
