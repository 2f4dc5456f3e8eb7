package io.portico.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The client's own event loops (epoll when available), separate from any server in the same JVM. One instance can
 * serve several runs (compare mode runs A and B on the same loops so they get the same client).
 */
public final class ClientLoops implements AutoCloseable {

    private final MultiThreadIoEventLoopGroup group;
    private final boolean epoll;
    private final Class<? extends Channel> channelClass;
    private final int threads;

    public ClientLoops(int threads) {
        this.threads = threads;
        // epoll classes are reached by reflection: the pom has them at runtime scope only (native artifact)
        IoHandlerFactory factory = NioIoHandler.newFactory();
        Class<? extends Channel> channel = NioSocketChannel.class;
        boolean native_ = false;
        try {
            if ((boolean) Class.forName("io.netty.channel.epoll.Epoll").getMethod("isAvailable").invoke(null)) {
                factory = (IoHandlerFactory) Class.forName("io.netty.channel.epoll.EpollIoHandler")
                        .getMethod("newFactory").invoke(null);
                channel = Class.forName("io.netty.channel.epoll.EpollSocketChannel").asSubclass(Channel.class);
                native_ = true;
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            // no native transport on this platform: NIO it is
        }
        this.epoll = native_;
        this.channelClass = channel;
        this.group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory("bench-client", true), factory);
    }

    public int threads() {
        return threads;
    }

    public String transport() {
        return epoll ? "epoll" : "nio";
    }

    List<EventLoop> loops() {
        List<EventLoop> loops = new ArrayList<>();
        group.forEach(e -> loops.add((EventLoop) e));
        return loops;
    }

    /** A bootstrap whose channels register on {@code loop}; the pipeline is completed by the virtual client. */
    Bootstrap bootstrap(EventLoop loop, Duration connectTimeout) {
        return new Bootstrap().group(loop)
                .channel(channelClass)
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
