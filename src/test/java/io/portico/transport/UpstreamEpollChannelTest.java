package io.portico.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.unix.UnixChannel;
import io.portico.config.IoTransport;
import io.portico.testing.TestTransport;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The epoll upstream channel that spares a connection Netty's address, SO_SNDBUF, SO_LINGER and epoll_ctl(DEL) system
 * calls still behaves as Netty's: it knows both addresses, has Nagle off, reads and writes, reports a refused connect
 * with the address, and closing it before its deregistration leaves the loop able to register the descriptor number
 * again for the next connection.
 */
class UpstreamEpollChannelTest {
    private MultiThreadIoEventLoopGroup group;
    private EventLoop loop;

    @BeforeEach
    void loop() {
        Transport transport = TestTransport.loadedOrSkip(IoTransport.EPOLL);
        group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        loop = group.next();
    }

    @AfterEach
    void shutdown() throws Exception {
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void knowsBothAddressesWithoutAskingAtConnect() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            InetSocketAddress target = (InetSocketAddress) listener.getLocalSocketAddress();
            Channel ch = connect(target, new ChannelInboundHandlerAdapter()).get(5, TimeUnit.SECONDS);
            try (Socket accepted = listener.accept()) {
                assertThat(ch).isInstanceOf(UpstreamEpollChannel.class);
                assertThat(ch.remoteAddress()).isEqualTo(target);
                // read from the socket when asked, and it is the port the server saw
                assertThat(((InetSocketAddress) ch.localAddress()).getPort()).isEqualTo(accepted.getPort());
            } finally {
                ch.close().sync();
            }
            assertThat(ch.isOpen()).isFalse();
        }
    }

    @Test
    void nagleIsOffBeforeAnyWriteButAFirstOneThatGoesOutWhole() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            InetSocketAddress target = (InetSocketAddress) listener.getLocalSocketAddress();
            Channel small = connect(target, new ChannelInboundHandlerAdapter()).get(5, TimeUnit.SECONDS);
            Channel large = connect(target, new ChannelInboundHandlerAdapter()).get(5, TimeUnit.SECONDS);
            try (Socket a = listener.accept(); Socket b = listener.accept()) {
                assertThat(small.config().getOption(ChannelOption.TCP_NODELAY)).as("not set when made").isFalse();
                small.writeAndFlush(small.alloc().buffer().writeBytes(new byte[600])).sync();
                assertThat(small.config().getOption(ChannelOption.TCP_NODELAY)).as("a small first write").isFalse();
                small.writeAndFlush(small.alloc().buffer().writeBytes(new byte[10])).sync();
                assertThat(small.config().getOption(ChannelOption.TCP_NODELAY)).as("the second write").isTrue();
                // more than a new socket's send buffer may take more than one writev: Nagle off before the first
                var written = large.writeAndFlush(large.alloc().buffer().writeBytes(new byte[4 << 20]));
                assertThat(a.getInputStream().readNBytes(610)).hasSize(610);
                assertThat(b.getInputStream().readNBytes(4 << 20)).hasSize(4 << 20);
                written.sync();
                assertThat(large.config().getOption(ChannelOption.TCP_NODELAY)).as("a large first write").isTrue();
            } finally {
                small.close().sync();
                large.close().sync();
            }
        }
    }

    @Test
    void descriptorsClosedBeforeDeregistrationAreRegisteredAgain() throws Exception {
        Set<Integer> fds = new HashSet<>();
        int rounds = 40;
        try (ServerSocket listener = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            InetSocketAddress target = (InetSocketAddress) listener.getLocalSocketAddress();
            for (int i = 0; i < rounds; i++) {
                CompletableFuture<Byte> read = new CompletableFuture<>();
                Channel ch = connect(target, new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf b = (ByteBuf) msg;
                        try {
                            read.complete(b.readByte());
                        } finally {
                            b.release();
                        }
                    }
                }).get(5, TimeUnit.SECONDS);
                fds.add(((UnixChannel) ch).fd().intValue());
                try (Socket accepted = listener.accept()) {
                    OutputStream out = accepted.getOutputStream();
                    out.write(i);
                    out.flush();
                    ch.read();
                    assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo((byte) i);
                    ch.writeAndFlush(ch.alloc().buffer(1).writeByte(i)).sync();
                    InputStream in = accepted.getInputStream();
                    assertThat(in.read()).isEqualTo(i);
                    ch.close().sync();
                    assertThat(in.read()).as("the upstream sees the close").isEqualTo(-1);
                }
            }
        }
        assertThat(fds.size()).as("descriptor numbers were reused").isLessThan(rounds);
    }

    @Test
    void aRefusedConnectNamesTheAddress() throws Exception {
        InetSocketAddress closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = (InetSocketAddress) s.getLocalSocketAddress();
        }
        CompletableFuture<Channel> connected = connect(closed, new ChannelInboundHandlerAdapter());
        assertThatThrownBy(() -> connected.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ConnectException.class)
                .hasMessageContaining(String.valueOf(closed.getPort()));
    }

    private CompletableFuture<Channel> connect(InetSocketAddress target, ChannelInboundHandlerAdapter handler) {
        SocketAddress connectTo = Transport.EPOLL.connectAddress(target);
        assertThat(connectTo).isInstanceOf(UpstreamEpollChannel.Target.class);
        CompletableFuture<Channel> done = new CompletableFuture<>();
        loop.execute(() -> {
            Channel ch = Transport.EPOLL.upstreamChannel(target).newChannel();
            ch.config().setAutoRead(false);
            ch.pipeline().addLast(handler);
            loop.register(ch).addListener(r -> ch.connect(connectTo).addListener(f -> {
                if (f.isSuccess()) {
                    done.complete(ch);
                } else {
                    ch.close();
                    done.completeExceptionally(f.cause());
                }
            }));
        });
        return done;
    }
}
