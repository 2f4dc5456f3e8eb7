package io.portico.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.connection.ReadGate;
import io.portico.exchange.HttpDates;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/2 stream's own client timers, as nginx runs them per stream: {@code client-body-timeout} between two
 * reads of the request body (and {@code client-body-min-rate}, {@link BodyRateCheck}), then 408 on this stream
 * alone; and {@code send-timeout} while the stream cannot be written (its client gives no flow-control window),
 * then the stream is reset (RST_STREAM CANCEL). Either way the connection and its other streams carry on. The
 * head has no timer here: a stream exists only once its whole header block came, and the connection's
 * idle close covers a block that never ends. Sits just above the stream codec, so it sees HTTP messages.
 */
final class StreamTimeoutHandler extends ChannelDuplexHandler implements ExchangeObserver {
    private static final AsciiString SERVER = AsciiString.cached("portico");
    private final long bodyNanos;
    private final long sendNanos;
    /** null when there is no minimum body rate. */
    private final BodyRateCheck bodyRate;
    private ChannelHandlerContext ctx;
    private boolean readingBody;
    /** The last body read (System.nanoTime), while the body is being read. */
    private long lastRead;
    private ScheduledFuture<?> bodyTimer;
    private ScheduledFuture<?> sendTimer;
    private boolean responseStarted;

    StreamTimeoutHandler(Duration body, Duration send, long bodyMinRate) {
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
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest && !(msg instanceof LastHttpContent)) {
            // HEADERS without END_STREAM: a body follows
            readingBody = true;
            lastRead = System.nanoTime();
            bodyTimer = ctx.executor().schedule(this::bodyCheck, bodyNanos, TimeUnit.NANOSECONDS);
            if (bodyRate != null) {
                bodyRate.start(ctx);
            }
        } else if (msg instanceof HttpContent content && readingBody) {
            lastRead = System.nanoTime();
            if (bodyRate != null) {
                bodyRate.read(content.content().readableBytes());
                bodyRate.arm();
            }
            if (msg instanceof LastHttpContent) {
                bodyDone();
            }
        }
        ctx.fireChannelRead(msg);
    }

    private void bodyDone() {
        readingBody = false;
        if (bodyTimer != null) {
            bodyTimer.cancel(false);
            bodyTimer = null;
        }
        if (bodyRate != null) {
            bodyRate.stop();
        }
    }

    /** The body timer re-arms itself for what is left since the last read, so a read costs a clock read only. */
    private void bodyCheck() {
        bodyTimer = null;
        if (!readingBody || !ctx.channel().isActive()) {
            return;
        }
        long left = lastRead + bodyNanos - System.nanoTime();
        if (ReadGate.of(ctx.channel()).isHeld()) {
            // Portico is not reading the body (a slow upstream, a rate-limit delay): the client cannot be late
            // for a read nobody makes, so it gets a whole timeout from when reads resume (ClientTimeoutHandler's
            // rule). While reads are off the client has no window to send with anyway.
            lastRead = System.nanoTime();
            left = bodyNanos;
        }
        if (left > 0) {
            bodyTimer = ctx.executor().schedule(this::bodyCheck, left, TimeUnit.NANOSECONDS);
            return;
        }
        requestTimeout();
    }

    /** The body stalled or crawled: 408 on this stream if no response has begun, then the stream goes. */
    private void requestTimeout() {
        bodyDone();
        if (responseStarted) {
            ctx.channel().close();
            return;
        }
        responseStarted = true;
        ReadGate.of(ctx.channel()).hold(ReadGate.Reason.CLOSING);
        // Closing the stream's channel after the response resets the stream (CANCEL), telling the client to stop
        // sending the rest of the body (RFC 9113 8.1).
        FullHttpResponse response = ErrorPages.build(HttpResponseStatus.REQUEST_TIMEOUT, null, null, false);
        // Written below StreamExchangeHandler, so its two fields are set here.
        response.headers().add(HttpHeaderNames.SERVER, SERVER).add(HttpHeaderNames.DATE, HttpDates.now());
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void responseStarted(HttpResponse head) {
        responseStarted = true;
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            if (sendTimer != null) {
                sendTimer.cancel(false);
                sendTimer = null;
            }
        } else if (sendTimer == null) {
            // The client gives this stream no window (or the connection is backed up): send-timeout to progress.
            sendTimer = ctx.executor().schedule(() -> ctx.channel().close(), sendNanos, TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        bodyDone();
        if (sendTimer != null) {
            sendTimer.cancel(false);
            sendTimer = null;
        }
        ctx.fireChannelInactive();
    }
}
