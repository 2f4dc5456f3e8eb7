package io.portico.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUringChannelOption;
import io.portico.config.IoTransport;
import io.portico.testing.TestTransport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each transport's loops and channels are recognised as its own (the channels Portico accepts, the upstream channels
 * it opens, on real loopback sockets), anything else answers as NIO, and the options Lettuce names by the transport
 * it would have chosen become the lane's transport's own.
 */
class TransportTest {

    @ParameterizedTest
    @EnumSource(value = IoTransport.class, names = {"EPOLL", "IO_URING", "NIO"})
    void knowsItsOwnLoopsAndChannels(IoTransport choice) throws Exception {
        Transport transport = TestTransport.loadedOrSkip(choice);
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        try {
            assertThat(Transport.of(group.next())).isSameAs(transport);
            CompletableFuture<Channel> accepted = new CompletableFuture<>();
            Channel listener = new ServerBootstrap().group(group).channel(transport.serverChannel())
                    .childHandler(new ChannelInitializer<>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            accepted.complete(ch);
                        }
                    })
                    .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
            InetSocketAddress address = (InetSocketAddress) listener.localAddress();
            Channel upstream = new Bootstrap().group(group).channelFactory(transport.upstreamChannel(address))
                    .handler(new ChannelInboundHandlerAdapter()).connect(address).sync().channel();
            Channel client = accepted.get(5, TimeUnit.SECONDS);
            assertThat(Transport.of(client)).isSameAs(transport);
            assertThat(Transport.of(upstream)).isSameAs(transport);
            assertThat(client).isInstanceOf(transport.socketChannel());
            // Every transport but NIO corks, and a corked accepted connection says so.
            if (transport.cork() != null) {
                assertThat(client.eventLoop().submit(() -> client.config().setOption(transport.cork(), true)).get())
                        .isTrue();
                assertThat(client.eventLoop().submit(() -> client.config().getOption(transport.cork())).get())
                        .isTrue();
            }
            upstream.close().sync();
            listener.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aChannelThatIsNoNativeSocketAnswersAsNio() {
        EmbeddedChannel stream = new EmbeddedChannel();
        assertThat(Transport.of(stream)).isSameAs(Transport.NIO);
        assertThat(Transport.of(stream).cork()).isNull();
        assertThat(Transport.of(stream).splicesFileRegions()).isFalse();
        Transport.of(stream).addCloseHandler(stream.pipeline(), "close");
        assertThat(stream.pipeline().get("close")).isNull();
        assertThat(stream.finishAndReleaseAll()).isFalse();
    }

    @Test
    void onlyIoUringNeedsTheCloseHandler() {
        EmbeddedChannel uring = new EmbeddedChannel();
        Transport.IO_URING.addCloseHandler(uring.pipeline(), "close");
        assertThat(uring.pipeline().get("close")).isInstanceOf(UringCloseHandler.class);
        EmbeddedChannel epoll = new EmbeddedChannel();
        Transport.EPOLL.addCloseHandler(epoll.pipeline(), "close");
        assertThat(epoll.pipeline().get("close")).isNull();
        assertThat(uring.finishAndReleaseAll()).isFalse();
        assertThat(epoll.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aNativeOptionBecomesTheTransportsOwnOfTheSameName() {
        assertThat(Transport.IO_URING.ownOption(any(EpollChannelOption.TCP_KEEPIDLE)))
                .isSameAs(IoUringChannelOption.TCP_KEEPIDLE);
        assertThat(Transport.EPOLL.ownOption(any(IoUringChannelOption.TCP_KEEPCNT)))
                .isSameAs(EpollChannelOption.TCP_KEEPCNT);
        assertThat(Transport.EPOLL.ownOption(any(EpollChannelOption.TCP_KEEPINTVL)))
                .isSameAs(EpollChannelOption.TCP_KEEPINTVL);
        // None on NIO, nor where only the other native transport has it.
        assertThat(Transport.NIO.ownOption(any(EpollChannelOption.TCP_KEEPIDLE))).isNull();
        assertThat(Transport.IO_URING.ownOption(any(EpollChannelOption.EPOLL_MODE))).isNull();
        // Portable options and the unix ones both native transports share pass as they are.
        assertThat(Transport.NIO.ownOption(any(ChannelOption.SO_KEEPALIVE))).isSameAs(ChannelOption.SO_KEEPALIVE);
        assertThat(Transport.IO_URING.ownOption(any(EpollChannelOption.SO_REUSEPORT)))
                .isSameAs(IoUringChannelOption.SO_REUSEPORT);
    }

    @Test
    void unixSocketUpstreamsNeedANativeTransport() {
        DomainSocketAddress socket = new DomainSocketAddress("/run/app.sock");
        assertThat(Transport.NIO.hasUnixSockets()).isFalse();
        assertThat(Transport.EPOLL.hasUnixSockets()).isTrue();
        assertThatThrownBy(() -> Transport.NIO.upstreamChannel(socket))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("unix socket upstream unix:/run/app.sock needs a native transport (epoll or io_uring)");
        assertThat(Transport.EPOLL.connectAddress(socket)).isSameAs(socket);
    }

    @SuppressWarnings("unchecked")
    private static ChannelOption<Object> any(ChannelOption<?> option) {
        return (ChannelOption<Object>) option;
    }
}
