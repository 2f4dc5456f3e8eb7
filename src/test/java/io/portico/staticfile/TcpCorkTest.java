package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TcpCorkTest {

    @Test
    void corksAndUncorksARealEpollSocket() throws Exception {
        assumeTrue(Epoll.isAvailable(), "epoll transport");
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        CompletableFuture<Channel> accepted = new CompletableFuture<>();
        try {
            Channel server = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                    .childHandler(new ChannelInboundHandlerAdapter() {
                        @Override
                        public void channelActive(io.netty.channel.ChannelHandlerContext ctx) {
                            accepted.complete(ctx.channel());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            Channel client = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                    .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            Channel child = accepted.get(5, TimeUnit.SECONDS);

            assertThat(child.eventLoop().submit(() -> TcpCork.on(child)).get()).isTrue();
            assertThat(child.config().getOption(EpollChannelOption.TCP_CORK)).isTrue();
            child.eventLoop().submit(() -> TcpCork.off(child)).get();
            assertThat(child.config().getOption(EpollChannelOption.TCP_CORK)).isFalse();

            client.close().sync();
            child.closeFuture().sync();
            child.eventLoop().submit(() -> TcpCork.off(child)).get(); // closed: a no-op, not an exception
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void aTransportWithoutCorkingIsLeftAlone() {
        EmbeddedChannel channel = new EmbeddedChannel();
        assertThat(TcpCork.on(channel)).isFalse();
        TcpCork.off(channel);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }
}
