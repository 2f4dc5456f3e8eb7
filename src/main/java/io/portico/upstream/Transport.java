package io.portico.upstream;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.portico.config.UpstreamAddress;
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

    Class<? extends Channel> channelClass(UpstreamAddress address) {
        if (address instanceof UpstreamAddress.Unix) {
            if (this != EPOLL) {
                throw new IllegalStateException("unix socket upstream " + address + " needs the epoll transport");
            }
            return EpollDomainSocketChannel.class;
        }
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    static SocketAddress socketAddress(UpstreamAddress address) {
        if (address instanceof UpstreamAddress.Unix unix) {
            return new DomainSocketAddress(unix.path().toFile());
        }
        return ((UpstreamAddress.Tcp) address).address();
    }
}
