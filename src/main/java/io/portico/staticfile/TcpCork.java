package io.portico.staticfile;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.portico.transport.Transport;

/**
 * nginx's {@code tcp_nopush} for sendfile responses: with the socket corked, the head and the file go out in
 * full-sized segments instead of whatever the socket had room for at each wake-up. With TCP_NODELAY alone a
 * 10 MiB download reached wrk in smaller pieces and ran at ~80 % of nginx's rate (nginx with {@code tcp_nopush
 * off} drops to the same rate). With the native transports (epoll, io_uring); with NIO a no-op.
 */
final class TcpCork {
    private TcpCork() {}

    /** Corks the connection; false when the transport cannot (then there is nothing to uncork). */
    static boolean on(Channel channel) {
        ChannelOption<Boolean> cork = option(channel);
        try {
            return cork != null && channel.config().setOption(cork, true);
        } catch (ChannelException e) {
            return false;
        }
    }

    /** Uncorks, which sends what is held; a connection closed meanwhile has nothing left to send. */
    static void off(Channel channel) {
        ChannelOption<Boolean> cork = option(channel);
        if (cork == null || !channel.isOpen()) {
            return;
        }
        try {
            channel.config().setOption(cork, false);
        } catch (ChannelException e) {
            // closed between the check and the call: nothing is held any more
        }
    }

    private static ChannelOption<Boolean> option(Channel channel) {
        return Transport.of(channel).cork();
    }
}
