package io.portico.demo;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.portico.config.DemoAppConfig;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where and with which transport the demo app listens: the transports Portico uses, epoll when available and NIO
 * otherwise. A unix socket needs epoll; with NIO it is refused with a message that says so.
 */
record DemoListener(
        SocketAddress address,
        Class<? extends ServerChannel> channelType,
        IoHandlerFactory ioHandler,
        Optional<Path> unixSocket) {

    static DemoListener of(DemoAppConfig config) throws DemoAppStartException {
        return of(config, Epoll.isAvailable());
    }

    /** With {@code epoll} false, the NIO transport even where epoll is available: how tests reach the NIO path. */
    static DemoListener of(DemoAppConfig config, boolean epoll) throws DemoAppStartException {
        IoHandlerFactory ioHandler = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        if (config.unixSocket().isPresent()) {
            Path path = config.unixSocket().get().toAbsolutePath();
            if (!epoll) {
                throw new DemoAppStartException(String.format(
                        "cannot listen on unix:%s: unix sockets need the native epoll transport, which is not"
                                + " available here (%s); listen on HOST:PORT instead",
                        path, Epoll.isAvailable() ? "not chosen" : Epoll.unavailabilityCause()));
            }
            return new DemoListener(
                    new DomainSocketAddress(path.toString()),
                    EpollServerDomainSocketChannel.class,
                    ioHandler,
                    Optional.of(path));
        }
        if (config.listen() == null) {
            throw new IllegalArgumentException("listen: null (expected: HOST:PORT or a unix socket path)");
        }
        return new DemoListener(
                config.listen().toSocketAddress(),
                epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class,
                ioHandler,
                Optional.empty());
    }

    /** {@code 127.0.0.1:8000} or {@code unix:/run/app.sock}, the way an operator writes it. */
    static String describe(SocketAddress address) {
        if (address instanceof DomainSocketAddress unix) {
            return "unix:" + unix.path();
        }
        if (address instanceof java.net.InetSocketAddress inet) {
            String host = inet.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return String.valueOf(address);
    }
}
