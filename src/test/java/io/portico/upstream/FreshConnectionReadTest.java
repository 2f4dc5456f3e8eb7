package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.ReferenceCountUtil;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A new epoll upstream connection has its first read asked for before it is registered, so that the epoll_ctl(ADD)
 * of its connect already carries EPOLLIN and no epoll_ctl(MOD) follows for the read after the request: what the
 * upstream sends reaches the connection's listener without anyone calling {@code read()} (auto-read stays off).
 */
class FreshConnectionReadTest {

    @Test
    void aNewEpollConnectionReadsItsFirstResponseWithoutAReadCall() throws Exception {
        Transport transport = TestTransport.loadedOrSkip(IoTransport.EPOLL);
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

            CompletableFuture<UpstreamConnection> connected = new CompletableFuture<>();
            CompletableFuture<Integer> status = new CompletableFuture<>();
            loop.execute(() -> pool.connect(server, c -> {
                c.attach(new UpstreamConnection.Listener() {
                    @Override
                    public void onMessage(HttpObject message) {
                        if (message instanceof HttpResponse r) {
                            status.complete(r.status().code());
                        }
                        ReferenceCountUtil.release(message);
                    }

                    @Override
                    public void onWritabilityChanged() {}

                    @Override
                    public void onClosed(Throwable cause) {
                        status.completeExceptionally(new AssertionError("closed before a response", cause));
                    }
                });
                connected.complete(c);
            }, connected::completeExceptionally));
            UpstreamConnection c = connected.get(5, TimeUnit.SECONDS);
            try (Socket s = listener.accept()) {
                assertThat(c.channel().config().isAutoRead()).isFalse();
                s.getOutputStream().write("HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertThat(status.get(5, TimeUnit.SECONDS)).isEqualTo(204);
            } finally {
                c.channel().close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
