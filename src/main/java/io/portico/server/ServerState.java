package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every connection of one server shares: the open client channels, whether the server is draining, and the
 * listeners a reload removed, whose connections close after their current response.
 */
final class ServerState {
    private final ChannelGroup clients = new DefaultChannelGroup("portico-clients", GlobalEventExecutor.INSTANCE);
    private final Set<Channel> closedListeners = ConcurrentHashMap.newKeySet();
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

    /** Whether {@code client}'s response now says {@code Connection: close}: draining, or its listener is gone. */
    boolean closesAfterResponse(Channel client) {
        return draining || (!closedListeners.isEmpty() && closedListeners.contains(client.parent()));
    }

    void listenerClosed(Channel listener) {
        closedListeners.add(listener);
    }

    /** Its connections are all closed: nothing to remember. */
    void listenerDrained(Channel listener) {
        closedListeners.remove(listener);
    }
}
