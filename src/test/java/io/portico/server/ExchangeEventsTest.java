package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.metrics.PorticoMetrics;
import io.portico.route.HostRouter;
import io.portico.route.ReturnResponder;
import io.portico.route.Router;
import io.portico.testing.RawHttp;
import io.portico.testing.TestTransport;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The moments of an HTTP/1.1 connection's exchanges, told once by the keep-alive stage, through the real pipeline:
 * pipelined requests one at a time, each response's end once, and the keep-alive decision with it (false for the
 * response that closes the connection).
 */
class ExchangeEventsTest {
    /** Records what an observer at the top of the pipeline hears. */
    private static final class Recorder implements ExchangeObserver {
        final List<String> seen = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void requestStarted(HttpRequest head, boolean bodyFollows) {
            seen.add("request " + head.uri() + (bodyFollows ? " +body" : ""));
        }

        @Override
        public void requestEnded() {
            seen.add("request ended");
        }

        @Override
        public void responseStarted(HttpResponse head) {
            seen.add("response " + head.status().code());
        }

        @Override
        public void responseEnded(ChannelFuture written, boolean keepAlive) {
            seen.add("response ended " + (keepAlive ? "keep-alive" : "close") + (written != null ? " (written)" : ""));
        }
    }

    @Test
    void eachExchangeIsToldOnceInOrderWithTheKeepAliveDecision() throws Exception {
        PorticoConfig config = ConfigLoader.parse("portico { access-log = off, locations = ["
                + " { path = \"/\", return = { status = 200, body = \"ok\" } } ] }", "events.conf", Path.of("."));
        PorticoMetrics metrics = new PorticoMetrics();
        Router router = Router.build(config.locations(),
                location -> new ReturnResponder((TargetConfig.Return) location.target()));
        ChannelHandler server = Pipelines.initializer(config, HostRouter.of(router), null, l -> metrics.location("", ""),
                metrics);
        Recorder recorder = new Recorder();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, TestTransport.of(false).ioHandlerFactory());
        try {
            Channel listener = new ServerBootstrap().group(group).channel(TestTransport.of(false).serverChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ExchangeEvents.of(ch).observe(recorder, true); // asks for the last write's future
                            ch.pipeline().addLast(server);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            try (RawHttp c = new RawHttp(((InetSocketAddress) listener.localAddress()).getPort())) {
                c.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                        + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"
                        + "GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                for (int i = 0; i < 3; i++) {
                    assertThat(c.read().status()).isEqualTo(200);
                }
                assertThat(c.closedByServer()).isTrue();
            }
            Awaitility.await().atMost(5, TimeUnit.SECONDS).until(() -> recorder.seen.size() >= 12);
            assertThat(recorder.seen).containsExactly(
                    "request /a", "request ended", "response 200", "response ended keep-alive (written)",
                    // return answers on the head: its response ends before the request's body does
                    "request /b +body", "response 200", "response ended keep-alive (written)", "request ended",
                    "request /c", "request ended", "response 200", "response ended close (written)");
            listener.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            metrics.close();
        }
    }
}
