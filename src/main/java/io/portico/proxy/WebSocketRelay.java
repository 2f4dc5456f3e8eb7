package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.connection.ClientPipeline;
import io.portico.connection.ReadGate;
import java.util.concurrent.TimeUnit;

/**
 * After an upstream's 101 to a WebSocket upgrade: both connections stop speaking HTTP and bytes are relayed each way,
 * read from one side only while the other is writable, until either closes or neither moves for {@code readTimeout}.
 * The relayed connection keeps its upstream server's {@code max-connections} permit and in-flight count until then.
 *
 * <p>The client pipeline's HTTP handlers and codec are taken out by {@link ClientPipeline#switchProtocols} (the
 * client timers included: the relay has its own idle timeout); the 101 and an empty last content go through them
 * first (so the access log records the request and the server sees the
 * exchange complete), then they are removed. The keep-alive handler must leave a 101's {@code Connection: upgrade}
 * alone (it treats 1xx as interim). Relaying starts one task later, after anything the keep-alive handler queued on the
 * loop when the response ended; from then the client channel reads only on demand ({@link ReadGate#onDemandOnly}), so
 * a release by a stage that is gone cannot switch auto-read back on.
 */
final class WebSocketRelay {
    private final Channel client;
    private final Channel upstream;
    private final long idleNanos;
    private final Runnable releaseSlot;
    private long lastActivity = System.nanoTime();
    private ScheduledFuture<?> idleTimer;

    private WebSocketRelay(Channel client, Channel upstream, long idleNanos, Runnable releaseSlot) {
        this.client = client;
        this.upstream = upstream;
        this.idleNanos = idleNanos;
        this.releaseSlot = releaseSlot;
    }

    static void upgrade(ProxyExchange exchange, HttpResponse response) {
        Channel client = exchange.client().channel();
        Attempt.Handover handover = exchange.takeConnection();
        Channel upstream = handover.connection().channel();
        String protocol = response.headers().get(HttpHeaderNames.UPGRADE, "websocket");
        HopByHop.remove(response.headers());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        response.headers().set(HttpHeaderNames.UPGRADE, protocol);
        client.write(response);
        client.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);

        WebSocketRelay relay = new WebSocketRelay(client, upstream,
                exchange.settings().pool().config().readTimeout().toNanos(), handover.releaseSlot());
        ClientPipeline.switchProtocols(client, relay.new Side(upstream));
        upstream.pipeline().addLast("relay", relay.new Side(client));
        handover.connection().leaveHttp();
        client.eventLoop().execute(relay::start);
    }

    private void start() {
        if (!client.isActive() || !upstream.isActive()) {
            closeBoth(); // one side left before the relay's handlers could hear of it
            return;
        }
        ReadGate.of(client).onDemandOnly();
        upstream.config().setAutoRead(false);
        read(client);
        read(upstream);
        scheduleIdleCheck(idleNanos);
    }

    /** One read from {@code side}: the client's through its read gate, the upstream's directly (its own channel). */
    private void read(Channel side) {
        if (side == client) {
            ReadGate.of(client).demand();
        } else {
            side.read();
        }
    }

    private void scheduleIdleCheck(long delay) {
        idleTimer = client.eventLoop().schedule(() -> {
            long idle = System.nanoTime() - lastActivity;
            if (idle >= idleNanos) {
                closeBoth();
            } else {
                scheduleIdleCheck(idleNanos - idle);
            }
        }, delay, TimeUnit.NANOSECONDS);
    }

    /** Either side closed, failed or idled out: both close, and the upstream server's slot is freed (once). */
    private void closeBoth() {
        releaseSlot.run();
        if (idleTimer != null) {
            idleTimer.cancel(false);
        }
        client.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        upstream.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }

    /** One direction: what this side's channel reads goes to {@code peer}. */
    private final class Side extends ChannelInboundHandlerAdapter {
        private final Channel peer;

        Side(Channel peer) {
            this.peer = peer;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf buf) {
                lastActivity = System.nanoTime();
                peer.write(buf);
            } else {
                ReferenceCountUtil.release(msg); // e.g. the empty last content the client codec emits after a 101
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            peer.flush();
            if (peer.isWritable()) {
                read(ctx.channel());
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            // This side drained: its peer, which writes into it, may read again.
            if (ctx.channel().isWritable()) {
                read(peer);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            closeBoth();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            // Client connections allow half-closure (for HTTP); a relay ends on either side's FIN, as before.
            if (evt instanceof ChannelInputShutdownEvent) {
                closeBoth();
            }
            ReferenceCountUtil.release(evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            closeBoth();
        }
    }
}
