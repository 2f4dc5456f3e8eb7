package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.portico.config.IoTransport;
import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import io.portico.transport.Transport;
import io.portico.testing.TestTransport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Upstream connections are made straight from the server's channel factory (no Bootstrap per connection), which
 * sets no TCP_NODELAY (one system call per connection saved): each connection is its own, on every transport, has
 * Nagle off anyway once it has written twice, read back from the socket, and has the options a Bootstrap would have
 * set (auto-read off, the upstream's connect timeout).
 */
class UpstreamSocketOptionsTest {

    @ParameterizedTest
    @EnumSource(value = IoTransport.class, names = {"EPOLL", "IO_URING", "NIO"})
    void eachConnectionIsItsOwnAndHasNagleOff(IoTransport choice) throws Exception {
        Transport transport = TestTransport.loadedOrSkip(choice);
        String name = transport.name();
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        try (ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            EventLoop loop = group.next();
            UpstreamServerConfig serverConfig = new UpstreamServerConfig(new UpstreamAddress.Tcp("127.0.0.1",
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort())), 1, 0,
                    Duration.ofSeconds(10), false);
            UpstreamConfig config = new UpstreamConfig("app", List.of(serverConfig),
                    UpstreamConfig.Balance.ROUND_ROBIN, "$request_uri", 8, Duration.ofSeconds(10), 0, 0,
                    Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofSeconds(5), 1,
                    Optional.empty(), 16 * 1024, 100);
            UpstreamServer server = new UpstreamServer("app", serverConfig, 0, System::nanoTime,
                    new ConnectionLimit(0, 0, Duration.ofSeconds(1), new AtomicInteger()), true);
            LoopConnections pool = new LoopConnections(loop, config, 1);

            UpstreamConnection first = connect(loop, pool, server);
            UpstreamConnection second = connect(loop, pool, server);
            try (Socket a = listener.accept(); Socket b = listener.accept()) {
                assertThat(a.getRemoteSocketAddress()).as("two connections arrived")
                        .isNotEqualTo(b.getRemoteSocketAddress());
                assertThat(second).isNotSameAs(first);
                assertThat(second.channel()).isNotSameAs(first.channel());
                for (UpstreamConnection c : List.of(first, second)) {
                    assertThat(c.channel().isActive()).isTrue();
                    assertThat(c.server()).isSameAs(server);
                    assertThat(c.channel().pipeline().get(LoopConnections.HANDLER)).isNotNull();
                    // epoll sets it before a connection's second write (UpstreamEpollChannelTest), the others at once
                    // raw bytes, below the codec (written from the first handler's context towards the socket)
                    c.channel().pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(new byte[] {1})).sync();
                    c.channel().pipeline().firstContext().writeAndFlush(Unpooled.wrappedBuffer(new byte[] {2})).sync();
                    assertThat(c.channel().config().getOption(ChannelOption.TCP_NODELAY)).as(name).isTrue();
                    assertThat(c.channel().config().isAutoRead()).as(name).isFalse();
                    // the connection's own timer watched the connect (one timer per connection, not two)
                    assertThat(c.channel().config().getConnectTimeoutMillis()).as(name).isZero();
                }
            } finally {
                first.channel().close().sync();
                second.channel().close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static UpstreamConnection connect(EventLoop loop, LoopConnections pool, UpstreamServer server)
            throws Exception {
        CompletableFuture<UpstreamConnection> done = new CompletableFuture<>();
        loop.execute(() -> pool.connect(server, done::complete, done::completeExceptionally));
        return done.get(5, TimeUnit.SECONDS);
    }
}
