package io.portico.demo;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.portico.config.DemoAppConfig;
import java.io.IOException;
import java.net.BindException;
import java.net.SocketAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An app server to measure Portico against without Python: behaves like gunicorn with N sync workers (exactly N
 * requests in service, the rest wait; {@code Connection: close} after each response unless keep-alive is on).
 * Started in-process by {@code portico serve} when {@code demo-app.enabled = true}, or alone by
 * {@code portico demo-app}.
 */
public final class DemoApp implements AutoCloseable {

    /** Largest request body the app takes (the aggregator answers 413 beyond it). */
    static final int MAX_REQUEST_BYTES = 16 * 1024 * 1024;
    /** gunicorn's default {@code --backlog}: connections beyond the workers wait in the kernel, never refused. */
    static final int BACKLOG = 2048;

    private final EventLoopGroup group;
    private final SyncWorkers workers;
    private final Channel server;
    private final Optional<Path> unixSocket;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DemoApp(EventLoopGroup group, SyncWorkers workers, Channel server, Optional<Path> unixSocket) {
        this.group = group;
        this.workers = workers;
        this.server = server;
        this.unixSocket = unixSocket;
    }

    /** Binds and starts serving; blocks until bound, so call it off any event loop. */
    public static DemoApp start(DemoAppConfig config) throws DemoAppStartException {
        return start(config, DemoListener.of(config));
    }

    static DemoApp start(DemoAppConfig config, DemoListener listener) throws DemoAppStartException {
        SyncWorkers workers = new SyncWorkers(config.workers());
        DemoEndpoints endpoints = new DemoEndpoints(new DemoFiles(config.root()));
        // One loop is plenty: the sync workers, not the sockets, are what this server is made to be limited by.
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory("demo-app-io", true), listener.ioHandler());
        try {
            listener.unixSocket().ifPresent(DemoApp::removeStaleSocket);
            ServerBootstrap bootstrap = new ServerBootstrap()
                    .group(group)
                    .channel(listener.channelType())
                    .option(ChannelOption.SO_BACKLOG, BACKLOG)
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel channel) {
                            channel.pipeline()
                                    .addLast("http", new HttpServerCodec())
                                    .addLast("aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                    .addLast("app", new SyncWorkerHandler(workers, endpoints, config.keepalive()));
                        }
                    });
            if (listener.unixSocket().isEmpty()) {
                bootstrap.option(ChannelOption.SO_REUSEADDR, true).childOption(ChannelOption.TCP_NODELAY, true);
            }
            ChannelFuture bound = bootstrap.bind(listener.address()).awaitUninterruptibly();
            if (!bound.isSuccess()) {
                throw new DemoAppStartException(bindFailure(listener.address(), bound.cause()), bound.cause());
            }
            return new DemoApp(group, workers, bound.channel(), listener.unixSocket());
        } catch (DemoAppStartException | RuntimeException e) {
            workers.close();
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly();
            throw e;
        }
    }

    private static String bindFailure(SocketAddress address, Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        // NIO throws BindException; epoll a NativeIoException whose message carries strerror(EADDRINUSE).
        boolean inUse = cause instanceof BindException
                || message.toLowerCase(Locale.ROOT).contains("address already in use");
        String why = inUse ? "address already in use" : message;
        return "cannot listen on " + DemoListener.describe(address) + ": " + why;
    }

    /** gunicorn replaces a socket file left behind by a previous run; anything else at the path is kept. */
    private static void removeStaleSocket(Path path) {
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isOther()) {
                Files.delete(path);
            }
        } catch (IOException absentOrUnreadable) {
            // bind reports whatever is really wrong
        }
    }

    /** The bound address: an {@link java.net.InetSocketAddress} with port 0 resolved, or the unix socket. */
    public SocketAddress localAddress() {
        return server.localAddress();
    }

    /** Requests in service right now, the most ever, and so on; what the concurrency tests read. */
    SyncWorkers workers() {
        return workers;
    }

    /** Stops accepting, interrupts and stops the workers, closes every connection and ends the threads. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        server.close().awaitUninterruptibly();
        workers.close();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        unixSocket.ifPresent(path -> {
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // a leftover socket file is replaced by the next start
            }
        });
    }

    @Override
    public String toString() {
        return "demo-app on " + DemoListener.describe(localAddress()) + " (" + workers.size() + " sync workers)";
    }
}
