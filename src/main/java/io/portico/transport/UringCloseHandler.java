package io.portico.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import java.io.IOException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * On io_uring, shuts the socket's sending side when a close waits on a write that does not complete, so that the
 * close completes when the peer reads nothing: a client connection's (first in its pipeline) and an upstream
 * connection's (an app that stops reading a request body).
 *
 * <p>Why: a send that found the socket's buffer full may run in one of the kernel's io-wq workers as a blocking
 * {@code tcp_sendmsg}, asleep in {@code sk_stream_wait_memory} until the peer reads. Netty's io_uring channel
 * defers its close until every submitted write has completed, and the ASYNC_CANCEL it submits for the write does
 * not wake such a send (seen on Linux 6.18: the worker's stack stays in {@code sk_stream_wait_memory}). So a
 * client that reads nothing kept the connection, its descriptor, its buffers and its access log line forever, and
 * an upstream that reads nothing its connection.
 * {@code shutdown(SHUT_WR)} marks the socket SEND_SHUTDOWN and wakes its writers: the send completes (EPIPE or the
 * bytes it took), Netty's deferred close proceeds, and what the kernel already queued still goes out before the
 * FIN, as after a close on epoll.
 *
 * <p>Not at once: a handler that writes an error response and closes relies on Netty's deferral, since on io_uring
 * the response is still in the ring when {@code close()} runs (a shutdown then would drop it, as the framing tests
 * saw). A write the socket can take completes within microseconds; one still pending {@link #STUCK_SEND_MILLIS} ms
 * later waits on the peer, and only then is the sending side shut (what the kernel queued still goes out before
 * the FIN; epoll's close drops what it has not written, too). Cancelled when the channel closes, so the
 * descriptor shut is never one reused since.
 *
 * <p>The raw descriptor is used rather than the channel's {@code shutdownOutput()}, which would fail and release
 * the outbound buffers whose memory the in-flight send still reads. First in the pipeline, so it sees the close
 * every other stage (TLS's close_notify included) passes on. Stateless, one instance for all channels.
 */
@ChannelHandler.Sharable
final class UringCloseHandler extends ChannelOutboundHandlerAdapter {
    static final UringCloseHandler INSTANCE = new UringCloseHandler();
    /** Far above a write the kernel can take at once, far below the timeouts a stuck client is closed by. */
    static final long STUCK_SEND_MILLIS = 100;

    private UringCloseHandler() { }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        Channel ch = ctx.channel();
        ChannelOutboundBuffer out = ch.unsafe().outboundBuffer();
        // A flushed message stays in the outbound buffer until its send completes: none there, none in flight.
        if (ch.isOpen() && out != null && !out.isEmpty()) {
            ScheduledFuture<?> stuck = ctx.executor().schedule(() -> shutdownSending(ch), STUCK_SEND_MILLIS,
                    TimeUnit.MILLISECONDS);
            ch.closeFuture().addListener(closed -> stuck.cancel(false));
        }
        ctx.close(promise);
    }

    /** On the channel's loop, as its close is: open here means its descriptor is still this channel's. */
    private static void shutdownSending(Channel ch) {
        if (!ch.isOpen()) {
            return;
        }
        try {
            new Socket(((UnixChannel) ch).fd().intValue()).shutdown(false, true);
        } catch (IOException notConnected) {
            // The peer reset it already: the send has failed or will, and the close goes on without help.
        }
    }
}
