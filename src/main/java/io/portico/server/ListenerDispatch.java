package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import java.util.function.Function;

/**
 * A listening socket's child handler, which outlives reloads: each accepted connection gets the pipeline of the
 * generation current at that moment ({@link ClientChannelInitializer}), so a reload changes what new connections
 * get without rebinding the socket.
 */
@ChannelHandler.Sharable
final class ListenerDispatch extends ChannelInitializer<Channel> {
    private final ListenerKey address;
    private final Function<ListenerKey, ClientChannelInitializer> initializers;

    ListenerDispatch(ListenerKey address, Function<ListenerKey, ClientChannelInitializer> initializers) {
        this.address = address;
        this.initializers = initializers;
    }

    @Override
    protected void initChannel(Channel ch) {
        ClientChannelInitializer initializer = initializers.apply(address);
        if (initializer == null) {
            ch.close(); // accepted in the instant a reload was closing this listener
            return;
        }
        initializer.initChannel(ch);
    }
}
