package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code limits.max-connections}: at the limit the listeners stop accepting, so further clients wait in the
 * kernel's backlog instead of being accepted and dropped; accepting resumes as connections close. (Out of file
 * descriptors, Netty's acceptor already backs off for a second instead of spinning.)
 */
@ChannelHandler.Sharable
final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final List<Channel> listeners = new CopyOnWriteArrayList<>();

    ConnectionLimiter(int max) {
        this.max = max;
    }

    void addListener(Channel listener) {
        listeners.add(listener);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (max > 0 && open.incrementAndGet() >= max) {
            setAccepting(false);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (max > 0 && open.decrementAndGet() < max) {
            setAccepting(true);
        }
        ctx.fireChannelInactive();
    }

    private void setAccepting(boolean on) {
        for (Channel l : listeners) {
            if (l.config().isAutoRead() != on) {
                l.config().setAutoRead(on);
            }
        }
    }
}
