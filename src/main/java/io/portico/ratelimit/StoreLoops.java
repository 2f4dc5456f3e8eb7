package io.portico.ratelimit;

import io.netty.channel.EventLoopGroup;
import io.portico.transport.Transport;

/**
 * The server's event loops, on which the connections of shared zones run ({@link StoreLanes}), and their transport,
 * whose channel classes the connections and their DNS resolver are made of.
 */
public record StoreLoops(EventLoopGroup group, Transport transport) {}
