package io.portico.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.unix.DomainSocketAddress;
import io.portico.config.UpstreamAddress;
import java.net.Inet6Address;
import java.net.SocketAddress;

/** The client-side channel classes that can register with a given event loop: those of the loop's own transport. */
enum Transport {
    EPOLL,
    IO_URING,
    NIO;

    static Transport of(EventLoop loop) {
        if (loop instanceof IoEventLoop io) {
            if (io.isIoType(EpollIoHandler.class)) {
                return EPOLL;
            }
            if (io.isIoType(IoUringIoHandler.class)) {
                return IO_URING;
            }
        }
        return NIO;
    }

    /** Whether unix domain socket upstreams can be reached: with the native transports only. */
    boolean hasUnixSockets() {
        return this != NIO;
    }

    /**
     * Makes the channel for a connection to {@code address}. An epoll TCP socket is opened in the address's own
     * family: the default dual-stack IPv6 socket costs a setsockopt per connection and the kernel's v4-mapped path
     * on every connect, which shows when an app server (gunicorn) closes every connection and each request opens one.
     */
    ChannelFactory<? extends Channel> channelFactory(UpstreamAddress address) {
        if (address instanceof UpstreamAddress.Unix) {
            return switch (this) {
                case EPOLL -> EpollDomainSocketChannel::new;
                case IO_URING -> IoUringDomainSocketChannel::new;
                case NIO -> throw new IllegalStateException(
                        "unix socket upstream " + address + " needs a native transport (epoll or io_uring)");
            };
        }
        if (this == NIO) {
            return NioSocketChannel::new;
        }
        if (this == IO_URING) {
            return IoUringSocketChannel::new; // dual-stack; Netty's io_uring channel takes no address family
        }
        SocketProtocolFamily family = ((UpstreamAddress.Tcp) address).address().getAddress() instanceof Inet6Address
                ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        return () -> new UpstreamEpollChannel(family);
    }

    /**
     * The address a channel of {@link #channelFactory} connects to for a pooled connection: an epoll TCP channel is
     * given its server's address in a form that spares it asking the socket for the peer's address afterwards (see
     * {@link UpstreamEpollChannel}); {@link #socketAddress} is the plain one, for a {@code Bootstrap}'s connect.
     */
    SocketAddress connectAddress(UpstreamAddress address) {
        if (this == EPOLL && address instanceof UpstreamAddress.Tcp tcp) {
            return new UpstreamEpollChannel.Target(tcp.address());
        }
        return socketAddress(address);
    }

    static SocketAddress socketAddress(UpstreamAddress address) {
        if (address instanceof UpstreamAddress.Unix unix) {
            return new DomainSocketAddress(unix.path().toFile());
        }
        return ((UpstreamAddress.Tcp) address).address();
    }
}
