package io.portico.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.FullHttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** A loopback HTTP server for tests, bound to port 0, answering every request according to a {@link Behavior}. */
final class StubServer implements AutoCloseable {

    enum Behavior { OK, RESET, CLOSE_WITHOUT_RESPONSE, NEVER_ANSWER, STALL_ONCE }

    private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final Behavior behavior;
    private final String body;
    private final int status;
    private final long stallMs;
    private final AtomicLong stallUntilNs = new AtomicLong();
    final AtomicInteger requests = new AtomicInteger();

    StubServer(Behavior behavior) throws InterruptedException {
        this(behavior, "hello", 200, 0);
    }

    /** {@code stallMs}: for STALL_ONCE, the first request opens a window of that length whose requests all wait. */
    StubServer(Behavior behavior, String body, int status, long stallMs) throws InterruptedException {
        this.behavior = behavior;
        this.body = body;
        this.status = status;
        this.stallMs = stallMs;
        server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536), new Answer());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    int port() {
        return ((java.net.InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly();
        group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
    }

    private final class Answer extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            requests.incrementAndGet();
            switch (behavior) {
                case OK -> respond(ctx, request);
                case RESET -> {
                    ctx.channel().config().setOption(ChannelOption.SO_LINGER, 0);
                    ctx.close();
                }
                case CLOSE_WITHOUT_RESPONSE -> ctx.close();
                case NEVER_ANSWER -> { }
                case STALL_ONCE -> {
                    long now = System.nanoTime();
                    stallUntilNs.compareAndSet(0, now + TimeUnit.MILLISECONDS.toNanos(stallMs));
                    long wait = stallUntilNs.get() - now;
                    if (wait > 0) {
                        ctx.executor().schedule(() -> respond(ctx, request), wait, TimeUnit.NANOSECONDS);
                    } else {
                        respond(ctx, request);
                    }
                }
            }
        }

        private void respond(ChannelHandlerContext ctx, HttpRequest request) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status),
                    Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
            if (!io.netty.handler.codec.http.HttpUtil.isKeepAlive(request)) {
                ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
            } else {
                ctx.writeAndFlush(r);
            }
        }
    }
}
