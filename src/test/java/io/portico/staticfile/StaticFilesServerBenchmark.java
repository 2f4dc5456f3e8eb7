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
import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.route.Exchange;
import io.portico.route.Responder;
import io.portico.route.Route;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A throwaway server for measuring the static responder with wrk before the real server core exists: one event
 * loop, HttpServerCodec, keep-alive, and a handler that calls the responder like the server will. Not a test.
 *
 * <pre>java -cp ... io.portico.staticfile.StaticFilesServerBenchmark 18090 /work/shared/peers/site</pre>
 * serves the directory at {@code /static/} (alias), like the peers' nginx.
 */
public final class StaticFilesServerBenchmark {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]).toAbsolutePath();
        StaticConfig config = new StaticConfig(64 << 20, 256 << 10, Duration.ofSeconds(1),
                StaticConfig.FollowSymlinks.INSIDE_ROOT, Map.of());
        TargetConfig.Static target = new TargetConfig.Static(dir, true, List.of("index.html"), List.of(), false,
                Optional.empty(), Optional.empty(), false, false);
        StaticFiles files = StaticFiles.create(config);
        Responder responder = files.responder(Harness.location("/static/", target), target, name -> null);
        Route route = new Route(Harness.location("/static/", target), responder);
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Channel server = new ServerBootstrap()
                .group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(),
                                new Dispatch(route, responder));
                    }
                })
                .bind("127.0.0.1", port)
                .sync()
                .channel();
        System.out.println("serving " + dir + " at http://127.0.0.1:" + port + "/static/ (epoll=" + epoll + ")");
        server.closeFuture().sync();
        files.close();
    }

    private static final class Dispatch extends SimpleChannelInboundHandler<HttpObject> {
        private final Route route;
        private final Responder responder;
        private Exchange exchange;

        Dispatch(Route route, Responder responder) {
            super(false);
            this.route = route;
            this.responder = responder;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
            if (msg instanceof HttpRequest request) {
                String uri = request.uri();
                int query = uri.indexOf('?');
                String rawPath = query < 0 ? uri : uri.substring(0, query);
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
    }
}
