package io.portico.upstream;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.unix.DomainSocketAddress;
import io.portico.config.UpstreamAddress;
import java.net.Inet6Address;
import java.net.SocketAddress;

/** The client-side channel classes that can register with a given event loop: epoll when it is native, else NIO. */
enum Transport {
    EPOLL,
    NIO;

    static Transport of(EventLoop loop) {
        if (Epoll.isAvailable() && loop instanceof IoEventLoop io && io.isIoType(EpollIoHandler.class)) {
            return EPOLL;
        }
        return NIO;
    }

    /**
     * Makes the channel for a connection to {@code address}. An epoll TCP socket is opened in the address's own
     * family: the default dual-stack IPv6 socket costs a setsockopt per connection and the kernel's v4-mapped path
     * on every connect, which shows when an app server (gunicorn) closes every connection and each request opens one.
     */
    ChannelFactory<? extends Channel> channelFactory(UpstreamAddress address) {
        if (address instanceof UpstreamAddress.Unix) {
            if (this != EPOLL) {
                throw new IllegalStateException("unix socket upstream " + address + " needs the epoll transport");
            }
            return EpollDomainSocketChannel::new;
        }
        if (this != EPOLL) {
            return NioSocketChannel::new;
        }
        SocketProtocolFamily family = ((UpstreamAddress.Tcp) address).address().getAddress() instanceof Inet6Address
                ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        return () -> new EpollSocketChannel(family);
    }

    static SocketAddress socketAddress(UpstreamAddress address) {
        if (address instanceof UpstreamAddress.Unix unix) {
            return new DomainSocketAddress(unix.path().toFile());
        }
        return ((UpstreamAddress.Tcp) address).address();
    }
}
