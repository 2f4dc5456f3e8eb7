package io.portico.server;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;

/** The I/O transport: native epoll where it loads (with SO_REUSEPORT), NIO elsewhere. */
record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel, boolean reusePort) {

    static Transport detect() {
        if (Epoll.isAvailable()) {
            return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class, true);
        }
        return new Transport("nio", NioIoHandler.newFactory(), NioServerSocketChannel.class, false);
    }

    /** Why epoll is not used, for the start-up log line. */
    static String epollUnavailableReason() {
        Throwable cause = Epoll.unavailabilityCause();
        return cause == null ? "" : cause.getMessage();
    }
}
