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
    /** A reload may change it: connections open are counted whatever it is. */
    private volatile int max;
    private final AtomicInteger open = new AtomicInteger();
    private final List<Channel> listeners = new CopyOnWriteArrayList<>();

    ConnectionLimiter(int max) {
        this.max = max;
    }

    void addListener(Channel listener) {
        listeners.add(listener);
        if (max > 0 && open.get() >= max) {
            listener.config().setAutoRead(false);
        }
    }

    void removeListener(Channel listener) {
        listeners.remove(listener);
    }

    void max(int max) {
        this.max = max;
        setAccepting(max <= 0 || open.get() < max);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        int n = open.incrementAndGet();
        if (max > 0 && n >= max) {
            setAccepting(false);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        int n = open.decrementAndGet();
        if (max > 0 && n < max) {
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
