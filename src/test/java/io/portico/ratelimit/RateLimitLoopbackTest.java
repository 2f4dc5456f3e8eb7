package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.LocationConfig;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import io.portico.testing.ResponseEvents;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The handler in a real pipeline on loopback: delayed requests wait on the real event loop's timer while other
 * requests of the same client are answered or rejected. Decisions use a frozen clock, so they are exact.
 */
class RateLimitLoopbackTest {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final ManualClock clock = new ManualClock();
    private Channel server;

    @AfterEach
    void stop() throws InterruptedException {
        if (server != null) {
            server.close().sync();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void delayedRequestsAreServedInTimeAndExcessRejected() throws Exception {
        RateLimits limits = RateLimits.create(
                Configs.config(List.of(Zones.delayed(10, SECOND, 2, 0)), List.of(), List.of(), location()), clock);
        int port = start(limits);
        HttpClient client = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        long start = System.nanoTime();
        List<Long> tookMillis = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            responses.add(client.sendAsync(
                    java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<Integer> statuses = new ArrayList<>();
        String retryAfter = null;
        for (CompletableFuture<HttpResponse<String>> future : responses) {
            HttpResponse<String> response = future.get(10, TimeUnit.SECONDS);
            statuses.add(response.statusCode());
            if (response.statusCode() == 429) {
                retryAfter = response.headers().firstValue("Retry-After").orElse(null);
            } else {
                tookMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            }
        }
        assertThat(statuses).containsExactlyInAnyOrder(200, 200, 200, 429);
        assertThat(retryAfter).isEqualTo("1");
        assertThat(tookMillis.stream().mapToLong(Long::longValue).max().orElseThrow())
                .as("the last admitted request waited for its 200 ms")
                .isGreaterThanOrEqualTo(200);
        assertThat(limits.rateLimitCounters().get("allips").delayed()).isEqualTo(2);
    }

    private LocationConfig location;

    private LocationConfig location() {
        location = Configs.location(List.of("allips"), List.of());
        return location;
    }

    private int start(RateLimits limits) throws InterruptedException {
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new ResponseEvents(), new Routing(location),
                                limits.newHandler(),
                                new Answer());
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** Stands in for the server's routing: every request gets a ClientExchange for the one location. */
    private static final class Routing extends ChannelInboundHandlerAdapter {
        private final LocationConfig location;

        Routing(LocationConfig location) {
            this.location = location;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                Channel channel = ctx.channel();
                channel.attr(ClientExchange.KEY)
                        .set(new FakeClientExchange(channel, new Route(location, null)).client("127.0.0.1"));
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** Stands in for the responder: 200 once the whole request is in. */
    private static final class Answer extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            boolean last = msg instanceof LastHttpContent;
            ReferenceCountUtil.release(msg);
            if (last) {
                FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                ok.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
                ctx.writeAndFlush(ok);
            }
        }
    }
}
