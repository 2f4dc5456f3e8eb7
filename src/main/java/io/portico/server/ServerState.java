package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;

/** What every connection of one server shares: the open client channels and whether the server is draining. */
final class ServerState {
    private final ChannelGroup clients = new DefaultChannelGroup("portico-clients", GlobalEventExecutor.INSTANCE);
    private volatile boolean draining;

    void add(Channel channel) {
        clients.add(channel);
    }

    int openConnections() {
        return clients.size();
    }

    ChannelGroup clients() {
        return clients;
    }

    boolean draining() {
        return draining;
    }

    void startDraining() {
        draining = true;
    }
}
