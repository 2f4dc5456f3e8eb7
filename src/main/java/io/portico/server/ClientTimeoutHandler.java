package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.connection.ReadGate;
import io.portico.metrics.LocationMeters;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The client-side timers, below the HTTP codec so that it sees the first byte of a request head: idle keep-alive
 * (close quietly), the whole head (408: slowloris), between body reads (408), a body below the minimum rate
 * (408, {@link BodyRateCheck}), and a response that cannot be written (close). It learns where a request stands from
 * the connection's {@link ExchangeEvents} (told by {@link KeepAliveHandler}).
 *
 * <p>One timer per connection, and moving a deadline is a field write: the timer, when it fires early, re-arms
 * itself for what is left (as Netty's IdleStateHandler does), so a request costs no scheduling.
 */
final class ClientTimeoutHandler extends ChannelDuplexHandler implements ExchangeObserver {
    private enum Phase { IDLE, HEAD, BODY, RESPONSE }

    private static final long NONE = Long.MAX_VALUE;

    private final long keepaliveNanos;
    private final long headerNanos;
    private final long bodyNanos;
    private final long sendNanos;
    private ChannelHandlerContext ctx;
    private Phase phase = Phase.IDLE;
    /** When the current phase times out (System.nanoTime), or NONE. */
    private long deadline = NONE;
    private ScheduledFuture<?> timer;
    private long timerAt = NONE;
    private ScheduledFuture<?> sendTimer;
    /** The last file region written, while its progress is watched; what it had sent at the last check. */
    private FileRegion watched;
    private long watchedBefore;
    private ScheduledFuture<?> progressCheck;
    /** The body timer last fired while Portico was not reading the body. */
    private boolean bodyPausedAtLastFire;
    /** null when there is no minimum body rate. */
    private final BodyRateCheck bodyRate;

    /** @param bodyMinRate bytes per second a body must average over each {@code body} window, 0 for no minimum */
    /** Where a head that did not arrive in time is counted (408, location ""): no request reached the stages above. */
    private final LocationMeters refused;

    ClientTimeoutHandler(Duration keepalive, Duration header, Duration body, Duration send, long bodyMinRate,
            LocationMeters refused) {
        this.refused = refused;
        this.keepaliveNanos = keepalive.toNanos();
        this.headerNanos = header.toNanos();
        this.bodyNanos = body.toNanos();
        this.sendNanos = send.toNanos();
        this.bodyRate = bodyMinRate > 0 ? new BodyRateCheck(bodyMinRate, bodyNanos, this::requestTimeout) : null;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ExchangeEvents.of(ctx.channel()).observe(this);
    }

    @Override
    public void requestStarted(HttpRequest head, boolean bodyFollows) {
        headReceived(bodyFollows);
    }

    @Override
    public void requestEnded() {
        bodyReceived();
    }

    @Override
    public void responseEnded(ChannelFuture written, boolean keepAlive) {
        if (keepAlive) {
            responseComplete();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        // A new connection gets the head timeout for its first request, not the longer keep-alive one.
        expireIn(headerNanos);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        int n = buf.readableBytes();
        if (phase == Phase.IDLE) {
            phase = Phase.HEAD;
            ctx.fireChannelRead(msg);
            if (phase == Phase.HEAD) {
                // The head did not come whole with these first bytes: it now has the header timeout to finish.
                // Armed only then, as nginx does: a head that arrives in one read (nearly all) costs no clock
                // read.
                expireIn(headerNanos);
            }
        } else {
            if (phase == Phase.BODY) {
                expireIn(bodyNanos);
            }
            ctx.fireChannelRead(msg);
        }
        if (bodyRate != null) {
            // Counted after the read went up, so a body that starts in it counts from its start (with the bytes
            // of its head: lenient); a body drained after its response completed counts too.
            bodyRate.read(n);
            if (phase == Phase.BODY) {
                bodyRate.arm();
            }
        }
    }

    /** The head is complete; a body follows, or the request is complete. */
    private void headReceived(boolean bodyFollows) {
        if (bodyFollows) {
            phase = Phase.BODY;
            bodyPausedAtLastFire = false;
            expireIn(bodyNanos);
            if (bodyRate != null) {
                bodyRate.start(ctx);
            }
        } else {
            phase = Phase.RESPONSE;
            deadline = NONE;
        }
    }

    private void bodyReceived() {
        // A location that answers on the head (return, 404, 429) completes the response before the request's
        // empty last content arrives: the connection is then IDLE and must keep its keep-alive deadline, or it
        // would never time out.
        if (phase != Phase.IDLE) {
            phase = Phase.RESPONSE;
            deadline = NONE;
        }
        if (bodyRate != null) {
            bodyRate.stop();
        }
    }

    /**
     * For the metrics, read from another thread (a stale phase at worst; enum references are read whole):
     * 0 waiting (idle), 1 reading a head, 2 writing (body or response).
     */
    int stateForMetrics() {
        Phase p = phase;
        return p == Phase.IDLE ? 0 : p == Phase.HEAD ? 1 : 2;
    }

    /** The response is complete and the connection stays open: wait for the next request. */
    private void responseComplete() {
        phase = Phase.IDLE;
        expireIn(keepaliveNanos);
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
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof FileRegion region) {
            // Netty counts a FileRegion as 0 pending bytes, so sendfile never makes the channel unwritable and
            // the writability timer above never starts: a client that stops reading a large static file would
            // hold its connection (and the open file) for ever. Watch the latest region's progress instead, with
            // one check per connection at a time (a check per region would keep every region sent in the last
            // send-timeout on the loop's timer queue).
            watched = region;
            watchedBefore = -1;
            if (progressCheck == null) {
                progressCheck = ctx.executor().schedule(this::checkProgress, sendNanos, TimeUnit.NANOSECONDS);
            }
        }
        ctx.write(msg, promise);
    }

    private void checkProgress() {
        progressCheck = null;
        FileRegion region = watched;
        if (region == null) {
            return;
        }
        long now;
        try {
            now = region.transferred();
        } catch (io.netty.util.IllegalReferenceCountException released) {
            watched = null; // written (or failed) and released
            return;
        }
        if (!ctx.channel().isActive() || now >= region.count()) {
            watched = null;
            return;
        }
        if (now == watchedBefore) {
            ctx.close();
            return;
        }
        watchedBefore = now;
        progressCheck = ctx.executor().schedule(this::checkProgress, sendNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        deadline = NONE;
        if (timer != null) {
            timer.cancel(false);
        }
        if (sendTimer != null) {
            sendTimer.cancel(false);
        }
        if (progressCheck != null) {
            progressCheck.cancel(false);
            progressCheck = null;
        }
        watched = null;
        if (bodyRate != null) {
            bodyRate.stop();
        }
        ctx.fireChannelInactive();
    }

    private void expireIn(long nanos) {
        deadline = System.nanoTime() + nanos;
        // A timer already due before the new deadline re-arms itself when it fires; only an earlier one is needed.
        if (timerAt > deadline || timer == null) {
            schedule(nanos);
        }
    }

    private void schedule(long nanos) {
        if (timer != null) {
            timer.cancel(false);
        }
        timerAt = System.nanoTime() + nanos;
        timer = ctx.executor().schedule(this::fire, nanos, TimeUnit.NANOSECONDS);
    }

    private void fire() {
        timer = null;
        timerAt = NONE;
        if (deadline == NONE || !ctx.channel().isActive()) {
            return;
        }
        long left = deadline - System.nanoTime();
        if (left > 0) {
            schedule(left);
            return;
        }
        boolean paused = phase == Phase.BODY && ReadGate.of(ctx.channel()).isHeld();
        if (paused || (phase == Phase.BODY && bodyPausedAtLastFire)) {
            // Portico is not reading the body (a rate-limit delay, a slow upstream pausing a streamed body), or
            // was not when the timer last fired: the client cannot be late for a read nobody makes, and gets a
            // whole timeout from the first firing that finds reads on. As nginx's client_body_timeout, which runs
            // only between two reads it makes.
            bodyPausedAtLastFire = paused;
            expireIn(bodyNanos);
            return;
        }
        deadline = NONE;
        if (phase == Phase.IDLE) {
            ctx.close();
        } else if (phase != Phase.RESPONSE) {
            requestTimeout();
        }
    }

    /** The head or body did not arrive in time (or fast enough): 408, then close. */
    private void requestTimeout() {
        if (phase == Phase.HEAD) {
            refused.answered(null, HttpResponseStatus.REQUEST_TIMEOUT.code(), 0, 0);
        }
        deadline = NONE;
        phase = Phase.RESPONSE;
        if (bodyRate != null) {
            bodyRate.stop();
        }
        // Below the codec: the answer goes out pre-encoded, then the connection closes.
        ReadGate.of(ctx.channel()).hold(ReadGate.Reason.CLOSING);
        ctx.writeAndFlush(ErrorPages.raw(HttpResponseStatus.REQUEST_TIMEOUT))
                .addListener(ChannelFutureListener.CLOSE);
    }
}
