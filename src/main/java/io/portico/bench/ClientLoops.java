package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.portico.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The client's own event loops (epoll when available, or the transport chosen), separate from any server in the same
 * JVM. One instance can serve several runs (compare mode runs A and B on the same loops so they get the same client).
 */
public final class ClientLoops implements AutoCloseable {

    private final MultiThreadIoEventLoopGroup group;
    private final Transport transport;
    private final int threads;

    /** Loops on the default transport (io_uring where it loads, else native epoll, else NIO). */
    public ClientLoops(int threads) {
        this(threads, Transport.detect());
    }

    public ClientLoops(int threads, Transport transport) {
        this.threads = threads;
        this.transport = transport;
        this.group = new MultiThreadIoEventLoopGroup(
                threads, new DefaultThreadFactory("bench-client", true), transport.ioHandlerFactory());
    }

    public int threads() {
        return threads;
    }

    public String transport() {
        return transport.name();
    }

    List<EventLoop> loops() {
        List<EventLoop> loops = new ArrayList<>();
        group.forEach(e -> loops.add((EventLoop) e));
        return loops;
    }

    /** A server on these loops: the client's in-process warm-up responder. */
    ServerBootstrap serverBootstrap() {
        return new ServerBootstrap().group(group).channel(transport.serverChannel());
    }

    /** A bootstrap whose channels register on {@code loop}; the pipeline is completed by the virtual client. */
    Bootstrap bootstrap(EventLoop loop, Duration connectTimeout) {
        return new Bootstrap().group(loop)
                .channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        connectTimeout.toMillis()))
                .handler(new Placeholder());
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Bootstrap requires a handler; the real pipeline is added once the connection is up. */
    @io.netty.channel.ChannelHandler.Sharable
    private static final class Placeholder extends ChannelInboundHandlerAdapter {
        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            ctx.pipeline().remove(this);
        }
    }
}
