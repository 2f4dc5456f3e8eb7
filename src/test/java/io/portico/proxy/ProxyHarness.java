package io.portico.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.Cidr;
import io.portico.config.LimitsConfig;
import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RequestPath;
import io.portico.config.TargetConfig;
import io.portico.config.UpstreamConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.RequestLog;
import io.portico.exchange.Responder;
import io.portico.exchange.Route;
import io.portico.server.Transport;
import io.portico.testing.TestTransport;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A stand-in for the server core: HttpServerCodec plus a handler that gives each request to the proxy responder
 * through a minimal {@link ClientExchange}. The proxy tests run on the real server ({@link ProxiedServer}); this
 * is left for the few checks only a stand-in can make (the body parts the exchange got, the client channel's
 * outbound buffer) and for one the real server fails (a client leaving mid-response, see
 * ProxyUpgradeAndSocketsTest). Do not add users.
 */
final class ProxyHarness implements AutoCloseable {
    final EventLoopGroup group;
    final Proxies proxies;
    final Responder responder;
    final Channel server;
    final ConcurrentLinkedQueue<RequestLog> logs = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Channel> clients = new ConcurrentLinkedQueue<>();
    final AtomicInteger contents = new AtomicInteger();

    ProxyHarness(UpstreamConfig upstream, TargetConfig.Proxy target, long maxBodySize, int loops, boolean epoll)
            throws InterruptedException {
        Transport transport = TestTransport.of(epoll);
        group = new MultiThreadIoEventLoopGroup(loops, transport.ioHandlerFactory());
        LimitsConfig limits = new LimitsConfig(8192, 16384, 100, maxBodySize, Duration.ofSeconds(10),
                Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(10), 1000, 1000);
        PorticoConfig config = new PorticoConfig(null, null, List.of(), loops, io.portico.config.IoTransport.AUTO, null,
                Duration.ofSeconds(1), limits, null, List.of(Cidr.parse("127.0.0.1")), List.of(),
                Map.of("app", upstream), Map.of(), Map.of(), List.of(), null, List.of(), null);
        proxies = Proxies.start(config, group);
        LocationConfig location = TestConfigs.location("/", target);
        responder = proxies.responder(location, target);
        server = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannel())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        clients.add(ch);
                        ch.pipeline().addLast("http", new HttpServerCodec());
                        ch.pipeline().addLast("exchange", new Front(new Route(location, responder)));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0))
                .sync()
                .channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        proxies.close();
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Front extends ChannelInboundHandlerAdapter {
        private final Route route;
        private Exchange exchange;

        Front(Route route) {
            this.route = route;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest request) {
                exchange = route.responder().open(new Client(ctx.channel(), route, request), request);
            }
            if (msg instanceof HttpContent content) {
                contents.incrementAndGet();
                if (exchange != null) {
                    exchange.onContent(content);
                } else {
                    content.release();
                }
            } else if (!(msg instanceof HttpRequest)) {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (exchange != null) {
                exchange.onClientClosed();
            }
        }
    }

    private final class Client implements ClientExchange {
        private final Channel channel;
        private final Route route;
        private final HttpRequest request;
        private final RequestLog log = new RequestLog();

        Client(Channel channel, Route route, HttpRequest request) {
            this.channel = channel;
            this.route = route;
            this.request = request;
            logs.add(log);
        }

        @Override
        public Channel channel() {
            return channel;
        }

        @Override
        public Route route() {
            return route;
        }

        @Override
        public String rawPath() {
            int q = request.uri().indexOf('?');
            return q < 0 ? request.uri() : request.uri().substring(0, q);
        }

        @Override
        public String path() {
            return RequestPath.normalize(rawPath());
        }

        @Override
        public InetSocketAddress clientAddress() {
            return peerAddress();
        }

        @Override
        public InetSocketAddress peerAddress() {
            return (InetSocketAddress) channel.remoteAddress();
        }

        @Override
        public boolean fromTrustedProxy() {
            return false;
        }

        @Override
        public boolean secure() {
            return false;
        }

        @Override
        public RequestLog log() {
            return log;
        }

        @Override
        public void sendError(HttpResponseStatus status, HttpHeaders headers, boolean close) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(status.toString(), StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
            if (headers != null) {
                r.headers().add(headers);
            }
            var f = channel.writeAndFlush(r);
            if (close) {
                f.addListener(ChannelFutureListener.CLOSE);
            }
        }
    }
}
