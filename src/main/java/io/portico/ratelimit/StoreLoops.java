package io.portico.ratelimit;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;

/**
 * The server's event loops, on which the connections of shared zones run ({@link StoreLanes}), and the channel
 * classes that register on them: the server's transport's, which the server owns ({@code server.Transport}) and
 * hands down, so that this package keeps no table of transports of its own.
 */
public record StoreLoops(EventLoopGroup group, Class<? extends SocketChannel> socketChannel,
        Class<? extends DatagramChannel> datagramChannel) {}
