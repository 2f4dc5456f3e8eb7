package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.SslCloseCompletionEvent;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.portico.config.Http2Config;
import io.portico.connection.ClientPipeline;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection-level stages of an HTTP/2 connection, built on Netty's codec: the SETTINGS Portico announces
 * (concurrent streams, window, header list and frame sizes), its defences (rapid reset: at most {@code max-resets}
 * RST_STREAM frames in {@code reset-window}, else GOAWAY ENHANCE_YOUR_CALM; a CONTINUATION flood of small frames,
 * GOAWAY), header validation, and a close (GOAWAY NO_ERROR) after {@code keepalive-timeout} with no stream open
 * and no frame either way.
 */
final class Http2Connections {
    private Http2Connections() {}

    static void addTo(ChannelPipeline p, Http2Config c, Duration idle, Consumer<Channel> streams) {
        p.addLast(ClientPipeline.H2_IDLE, new IdleClose(idle));
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(c.maxConcurrentStreams())
                .initialWindowSize(c.initialWindowSize())
                .maxHeaderListSize(c.maxHeaderListSize())
                .maxFrameSize(c.maxFrameSize());
        p.addLast(ClientPipeline.H2_CODEC, Http2FrameCodecBuilder.forServer()
                .initialSettings(settings)
                .validateHeaders(true)
                .decoderEnforceMaxRstFramesPerWindow(c.maxResets(), (int) c.resetWindow().toSeconds())
                .decoderEnforceMaxSmallContinuationFrames(c.maxSmallContinuations())
                .build());
        p.addLast(ClientPipeline.H2_STREAMS, new Http2MultiplexHandler(new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel stream) {
                streams.accept(stream);
            }
        }));
        p.addLast(ClientPipeline.H2_ERRORS, ConnectionErrors.INSTANCE);
    }

    /**
     * Closes an HTTP/2 connection that has had no stream open and no frame either way for the idle time, as nginx's
     * keepalive_timeout does on HTTP/2: a stream waiting for a slow upstream is not idleness (its own timeouts,
     * {@link StreamTimeoutHandler} and the upstream's, bound it). The close starts at the pipeline's tail so that it
     * passes through the codec, which sends GOAWAY NO_ERROR first; this handler sits below the codec, and its own
     * {@code ctx.close()} would skip it.
     *
     * <p>It also closes a connection whose client closed its side: a TCP FIN (client channels allow half-closure,
     * for HTTP/1.1) or TLS close_notify, as nginx does when its read returns 0. HTTP/2 gives a half-closed
     * connection no meaning, no frame can come any more, and its open streams would otherwise hold it (and their
     * upstreams) until they end. The close is immediate, below the codec: a GOAWAY through it would wait for those
     * streams.
     */
    private static final class IdleClose extends IdleStateHandler {
        /** @param idle zero: no idle close */
        IdleClose(Duration idle) {
            super(0, 0, idle.toMillis(), TimeUnit.MILLISECONDS);
        }

        @Override
        protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
            Http2FrameCodec codec = ctx.pipeline().get(Http2FrameCodec.class);
            if (codec != null && codec.connection().numActiveStreams() > 0) {
                return; // checked again after another idle time without a frame
            }
            ctx.channel().close();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof ChannelInputShutdownEvent || evt instanceof SslCloseCompletionEvent) {
                ctx.close();
                return;
            }
            super.userEventTriggered(ctx, evt);
        }
    }

    /**
     * The end of an HTTP/2 connection's pipeline: the codec has already answered a client's protocol error with
     * GOAWAY (or a stream's with RST_STREAM) and passes the exception on; a broken connection closes itself. Both
     * are the client's doing, so one debug line each rather than Netty's warning with a stack trace from the tail,
     * which a client could have repeated at will. Anything else is Portico's and is logged so, then closes.
     */
    @ChannelHandler.Sharable
    private static final class ConnectionErrors extends ChannelInboundHandlerAdapter {
        static final ConnectionErrors INSTANCE = new ConnectionErrors();
        private static final Logger log = LoggerFactory.getLogger(Http2Connections.class);

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof Http2Exception || cause instanceof IOException) {
                log.debug("client {}: HTTP/2 connection: {}", ctx.channel().remoteAddress(), cause.toString());
            } else {
                log.warn("client {}: HTTP/2 connection failed", ctx.channel().remoteAddress(), cause);
                ctx.close();
            }
        }
    }
}
