package io.portico.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.portico.config.IoTransport;
import io.portico.testing.TestTransport;
import io.portico.transport.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The server sets no TCP_NODELAY child option (one system call per connection saved): this pins that every
 * transport's accepted sockets have it on anyway, read back from the socket itself.
 */
class AcceptedSocketOptionsTest {

    @ParameterizedTest
    @EnumSource(value = IoTransport.class, names = {"EPOLL", "IO_URING", "NIO"})
    void acceptedConnectionsHaveNagleOff(IoTransport choice) throws Exception {
        Transport transport = TestTransport.loadedOrSkip(choice);
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        CompletableFuture<Boolean> noDelay = new CompletableFuture<>();
        try {
            Channel listener = new ServerBootstrap().group(group).channel(transport.serverChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            noDelay.complete(ch.config().getOption(ChannelOption.TCP_NODELAY));
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(),
                    ((InetSocketAddress) listener.localAddress()).getPort())) {
                assertThat(noDelay.get(5, TimeUnit.SECONDS)).as(transport.name()).isTrue();
                assertThat(client.isConnected()).isTrue();
            } finally {
                listener.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
