package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.portico.exchange.ClientExchange;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;

/**
 * What a test may learn of a running {@link PorticoServer}'s client connections that neither its responses, its
 * access log nor its metrics show, each read on the connection's own event loop (the state is the loop's). For
 * tests of other packages that run on the real server rather than a stand-in of it.
 */
public final class ServerProbe {
    private ServerProbe() {}

    /** The most bytes any client connection has queued for its client and not yet written to the socket. */
    public static long maxPendingOutbound(PorticoServer server) {
        return max(server, ch -> {
            ChannelOutboundBuffer b = ch.unsafe().outboundBuffer();
            return b == null ? 0L : b.totalPendingWriteBytes();
        });
    }

    /**
     * The most body bytes any connection's request in progress has read: counted as each part passes the request's
     * record, in the same pass that hands it to the later stages and the responder.
     */
    public static long maxRequestBodyBytesRead(PorticoServer server) {
        return max(server, ch -> {
            ClientExchange exchange = ch.attr(ClientExchange.KEY).get();
            return exchange instanceof RequestContext rc ? rc.bodyBytesRead : 0L;
        });
    }

    private static long max(PorticoServer server, Function<Channel, Long> read) {
        long max = 0;
        for (Channel ch : server.clientChannels()) {
            Callable<Long> onLoop = () -> read.apply(ch);
            try {
                max = Math.max(max, ch.eventLoop().submit(onLoop).get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
        return max;
    }
}
