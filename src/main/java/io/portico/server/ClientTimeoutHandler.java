package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The client-side timers, one at a time, below the HTTP codec so that it sees the first byte of a request head:
 * idle keep-alive (close quietly), the whole head (408: slowloris), between body reads (408), and a response
 * that cannot be written (close). {@link ConnectionHandler} tells it where a request stands.
 */
final class ClientTimeoutHandler extends ChannelDuplexHandler {
    private enum Phase { IDLE, HEAD, BODY, RESPONSE }

    private final long keepaliveNanos;
    private final long headerNanos;
    private final long bodyNanos;
    private final long sendNanos;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.IDLE;
    private ScheduledFuture<?> timer;
    private ScheduledFuture<?> sendTimer;

    ClientTimeoutHandler(Duration keepalive, Duration header, Duration body, Duration send) {
        this.keepaliveNanos = keepalive.toNanos();
        this.headerNanos = header.toNanos();
        this.bodyNanos = body.toNanos();
        this.sendNanos = send.toNanos();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // A new connection gets the head timeout for its first request, not the longer keep-alive one.
        arm(headerNanos);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf) {
            if (phase == Phase.IDLE) {
                phase = Phase.HEAD;
                arm(headerNanos);
            } else if (phase == Phase.BODY) {
                arm(bodyNanos);
            }
        }
        ctx.fireChannelRead(msg);
    }

    /** The head is complete; a body follows, or the request is complete. */
    void headReceived(boolean bodyFollows) {
        phase = bodyFollows ? Phase.BODY : Phase.RESPONSE;
        if (bodyFollows) {
            arm(bodyNanos);
        } else {
            cancel();
        }
    }

    void bodyReceived() {
        phase = Phase.RESPONSE;
        cancel();
    }

    /** The response is complete and the connection stays open: wait for the next request. */
    void responseComplete() {
        phase = Phase.IDLE;
        arm(keepaliveNanos);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            if (sendTimer != null) {
                sendTimer.cancel(false);
                sendTimer = null;
            }
        } else if (sendTimer == null) {
            // The client stopped reading what we send: give it send-timeout to make progress.
            sendTimer = ctx.executor().schedule(() -> ctx.close(), sendNanos, TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        if (sendTimer != null) {
            sendTimer.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    private void arm(long nanos) {
        cancel();
        Phase armedFor = phase;
        timer = ctx.executor().schedule(() -> expire(armedFor), nanos, TimeUnit.NANOSECONDS);
    }

    private void expire(Phase armedFor) {
        if (phase != armedFor || !ctx.channel().isActive()) {
            return;
        }
        if (phase == Phase.IDLE) {
            ctx.close();
        } else {
            // Below the codec: the answer goes out pre-encoded, then the connection closes.
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(ErrorPages.raw(HttpResponseStatus.REQUEST_TIMEOUT)).addListener(ChannelFutureListener.CLOSE);
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
