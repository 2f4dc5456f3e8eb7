package io.portico.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Upstream sockets are opened in the address's own family, and connect in both. */
class TransportFamilyTest {

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void connectsInTheAddressFamily(String host) throws Exception {
        assumeTrue(Epoll.isAvailable(), "epoll transport");
        InetAddress address = InetAddress.getByName(host);
        ServerSocket listener;
        try {
            listener = new ServerSocket(0, 1, address);
        } catch (IOException noIpv6) {
            assumeTrue(false, "no " + host + " on this machine");
            return;
        }
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        try (listener) {
            InetSocketAddress upstream = new InetSocketAddress(address, listener.getLocalPort());
            Channel ch = new Bootstrap().group(group)
                    .channelFactory(Transport.EPOLL.upstreamChannel(upstream))
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(upstream).sync().channel();
            try (Socket accepted = listener.accept()) {
                assertThat(((InetSocketAddress) ch.remoteAddress()).getAddress()).isEqualTo(address);
                assertThat(accepted.getInetAddress()).isEqualTo(address);
            }
            ch.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
