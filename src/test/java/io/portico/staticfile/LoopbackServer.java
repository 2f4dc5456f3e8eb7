package io.portico.staticfile;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.util.ReferenceCountUtil;
import io.portico.route.Exchange;
import io.portico.route.Responder;
import io.portico.route.Route;
import java.net.InetSocketAddress;

/**
 * A stand-in for the server core on a loopback port: one event loop, HttpServerCodec, keep-alive, and a handler
 * that calls one responder the way the server does. For integration tests and the wrk benchmark only.
 */
final class LoopbackServer implements AutoCloseable {
    private final EventLoopGroup group;
    private final Channel channel;

    LoopbackServer(int port, Route route) throws InterruptedException {
        boolean epoll = Epoll.isAvailable();
        group = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        channel = new ServerBootstrap()
                .group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
                                new Dispatch(route));
                    }
                })
                .bind("127.0.0.1", port)
                .sync()
                .channel();
    }

    int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    Channel channel() {
        return channel;
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class Dispatch extends SimpleChannelInboundHandler<HttpObject> {
        private final Route route;
        private Exchange exchange;

        Dispatch(Route route) {
            super(false);
            this.route = route;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpRequest request) {
                String uri = request.uri();
                int query = uri.indexOf('?');
                String rawPath = query < 0 ? uri : uri.substring(0, query);
                Responder responder = route.responder();
                exchange = responder.open(new FakeClient(ctx.channel(), route, rawPath, false), request);
            }
            if (msg instanceof HttpContent content) {
                if (exchange != null) {
                    exchange.onContent(content);
                } else {
                    ReferenceCountUtil.release(content);
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (exchange != null) {
                exchange.onClientClosed();
            }
        }
    }
}
