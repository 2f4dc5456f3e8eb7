package io.portico.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpObject;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One connection to an upstream server (HTTP/1.1, or uwsgi requests with HTTP/1.x responses), used on its event loop only. While a request uses it, everything
 * the upstream sends goes to the attached {@link Listener}; while idle in the pool, anything it sends is odd and
 * closes it, and the server closing it removes it from the pool.
 */
public final class UpstreamConnection {

    /** The exchange using the connection; every call comes on the event loop. */
    public interface Listener {
        /** A decoded response part; the listener owns it. */
        void onMessage(HttpObject message);

        void onWritabilityChanged();

        /** The connection closed or failed; {@code cause} is null for a plain close. Called at most once. */
        void onClosed(Throwable cause);
    }

    private final Channel channel;
    private final UpstreamServer server;
    private final LoopConnections owner;
    private Listener listener;
    private int uses;
    /** Owned by {@link LoopConnections}: in its idle pool, since when, and its idle timer (null when none). */
    boolean idle;
    long idleSinceNanos;
    /**
     * A per-connection limit's permit ({@link ConnectionLimit#perConnection}), from the connect to the close: the
     * permit of a kept connection moves with it, and its close releases it ({@link Handler#channelInactive}).
     */
    boolean holdsPermit;
    ScheduledFuture<?> idleTimer;

    UpstreamConnection(Channel channel, UpstreamServer server, LoopConnections owner) {
        this.channel = channel;
        this.server = server;
        this.owner = owner;
    }

    public Channel channel() {
        return channel;
    }

    public UpstreamServer server() {
        return server;
    }

    /**
     * For a switch of protocols (a 101): removes the HTTP handlers, so that the channel carries raw bytes to
     * whatever was added after them (bytes the decoder had buffered go there first). Without its codec the
     * connection counts as desynchronised and is never pooled again.
     */
    public void leaveHttp() {
        ChannelPipeline p = channel.pipeline();
        p.remove(LoopConnections.HANDLER);
        UpstreamCodec.removeFrom(p);
    }

    /** Whether an earlier request used this connection: then the server may have closed it while it was idle. */
    public boolean reused() {
        return uses > 1;
    }

    /** Per connection: the permit of the request that opened the connection is now the connection's. */
    public void takePermit() {
        holdsPermit = true;
    }

    public void attach(Listener listener) {
        this.listener = listener;
        uses++;
    }

    /**
     * Returns the connection to the idle pool when {@code reusable}, its protocol keeps connections alive and the
     * pool has room, else closes it.
     */
    public void release(boolean reusable) {
        listener = null;
        if (reusable && server.protocol().keepsAlive() && channel.isActive() && !desynchronised()) {
            owner.offer(this);
        } else {
            channel.close();
        }
    }

    /**
     * Bytes received beyond the end of the last response (more than its Content-Length, or anything sent while
     * idle): the upstream and we disagree on where a response ends, and reusing the connection would hand those
     * bytes to the next request as its response.
     */
    boolean desynchronised() {
        return UpstreamCodec.hasLeftover(channel.pipeline());
    }

    /** Detaches and closes: for a request that went wrong or was cancelled. */
    public void close() {
        listener = null;
        channel.close();
    }

    /** A deadline the connection's timer checks for the request using it. */
    public interface Deadline {
        /**
         * Called on the event loop when the timer fires: the nanoseconds still left, or 0 when it expired (and was
         * handled).
         */
        long check();
    }

    private Deadline deadline;
    private ScheduledFuture<?> deadlineTimer;
    private long deadlineTimerAt;

    /**
     * Watches {@code d}, first checked {@code delayNanos} from now. The timer belongs to the connection and outlives
     * the request, so that a request on a kept-alive connection moves a deadline instead of scheduling and
     * cancelling a timer: it is rescheduled only when it would fire later than this request needs.
     */
    public void watch(Deadline d, long delayNanos) {
        deadline = d;
        long at = System.nanoTime() + delayNanos;
        if (deadlineTimer != null && at - deadlineTimerAt >= 0) {
            return;
        }
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
        }
        armDeadlineTimer(delayNanos);
    }

    /** Stops watching; a pending timer finds nothing to check and stops. */
    public void unwatch() {
        deadline = null;
    }

    private void armDeadlineTimer(long delayNanos) {
        deadlineTimerAt = System.nanoTime() + delayNanos;
        deadlineTimer = channel.eventLoop().schedule(this::deadlineTimerFired, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void deadlineTimerFired() {
        deadlineTimer = null;
        Deadline d = deadline;
        if (d == null) {
            return;
        }
        long left = d.check();
        if (left > 0 && deadline == d && deadlineTimer == null) {
            armDeadlineTimer(left);
        }
    }

    /** Stops watching and cancels the timer: the connection is done with (closed, or its connect failed). */
    void cancelDeadlineTimer() {
        deadline = null;
        if (deadlineTimer != null) {
            deadlineTimer.cancel(false);
            deadlineTimer = null;
        }
    }

    /** Sits after the HTTP client codec and routes what it decodes. */
    final class Handler extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            // Anything decoded while idle answers no request: the connection is closed below.
            Listener l = listener;
            if (l != null && msg instanceof HttpObject http) {
                l.onMessage(http);
            } else {
                ReferenceCountUtil.release(msg);
                ctx.close();
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            Listener l = listener;
            if (l != null) {
                l.onWritabilityChanged();
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancelDeadlineTimer();
            owner.remove(UpstreamConnection.this);
            if (holdsPermit) {
                holdsPermit = false;
                server.limit().release();
            }
            closed(null);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
            closed(cause);
        }

        private void closed(Throwable cause) {
            Listener l = listener;
            listener = null;
            if (l != null) {
                l.onClosed(cause);
            }
        }
    }
}
