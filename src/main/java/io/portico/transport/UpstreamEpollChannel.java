package io.portico.transport;

import io.netty.channel.ChannelException;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.AbstractEpollStreamChannel;
import io.netty.channel.epoll.EpollChannelConfig;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.epoll.Native;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.unix.Limits;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.UnresolvedAddressException;

/**
 * An epoll TCP channel for upstream connections: Netty's {@code EpollSocketChannel} without the system calls that a
 * connection made for one request does not need. In front of an app server that closes every connection (uWSGI,
 * PHP-FPM as nginx drives it) each request opens one, and on a paravirtualized guest each system call is dear. Per
 * connection this makes 6 fewer than {@code EpollSocketChannel} (measured on the event loop: 18.5 system calls per
 * uwsgi request, nginx's worker 11.6):
 * <ul>
 *   <li>no {@code setsockopt(TCP_NODELAY)} when made: it is set before the second write (see {@link #doWrite});
 *   <li>no {@code getsockopt(SO_SNDBUF)} when made: the most a gathering write takes at first is twice the send
 *       buffer a new socket gets, read once from the first channel (Netty's config reads it for every channel);
 *   <li>no {@code getsockname} after the connect: the local address is read from the socket when someone asks (the
 *       access log and the error log name the server, never the connection's own port);
 *   <li>no {@code getpeername} when the connect completes: connected to a {@link Target}, the remote address is the
 *       one connected to; Netty asks the socket only for an {@code InetSocketAddress} it was given;
 *   <li>no {@code getsockopt(SO_LINGER)} before the close: {@code EpollSocketChannel} checks it to close a lingering
 *       socket off the loop; this channel never sets SO_LINGER;
 *   <li>no {@code epoll_ctl(DEL)} before the close: the descriptor is closed first, which takes it out of the epoll
 *       set, and Netty's registration then skips its DEL (it removes only a descriptor still open), as nginx does.
 * </ul>
 * Any other connect (a {@code Bootstrap}'s, to a plain address,
 * as the health checks make) is Netty's own. Runs on its event loop only, as every channel.
 */
final class UpstreamEpollChannel extends AbstractEpollStreamChannel {
    /** The send buffer of a new socket (its SO_SNDBUF); 0 until the first channel is made. */
    private static volatile int newSocketSendBuffer;

    private final Config config;
    private volatile InetSocketAddress remote;
    private volatile SocketAddress local;
    /** Whether {@link #doWrite} ran: Nagle is off from the second write on. */
    private boolean wrote;
    /** Whether TCP_NODELAY is on, as this channel set it (or an option did). */
    private volatile boolean noDelay;

    UpstreamEpollChannel(SocketProtocolFamily family) {
        super(LinuxSocket.newSocketStream(family), false);
        config = new Config(this);
        try {
            int sendBuffer = newSocketSendBuffer;
            if (sendBuffer == 0) {
                sendBuffer = newSocketSendBuffer = Math.max(1, socket.getSendBufferSize());
            }
            config.gatheringWriteLimit((long) sendBuffer << 1); // what Netty's config computes for each channel
        } catch (IOException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // the channel was never used; the first failure is the one to report
            }
            throw new ChannelException(e);
        }
    }

    /**
     * An upstream server's address, to connect to without asking the socket for it afterwards: Netty's connect reads
     * the peer's address back only when it was given an {@code InetSocketAddress}, which this is not.
     */
    static final class Target extends SocketAddress {
        private static final long serialVersionUID = 1L;
        final InetSocketAddress address;

        Target(InetSocketAddress address) {
            this.address = address;
        }

        @Override
        public String toString() {
            return address.toString(); // what Netty's connect failures append
        }
    }

    @Override
    protected boolean doConnect(SocketAddress remoteAddress, SocketAddress localAddress) throws Exception {
        if (!(remoteAddress instanceof Target target) || localAddress != null) {
            return super.doConnect(remoteAddress, localAddress);
        }
        if (remote != null) {
            throw new AlreadyConnectedException();
        }
        InetSocketAddress address = target.address;
        if (address.isUnresolved()) {
            throw new UnresolvedAddressException(); // as Netty's check; the configuration resolved it at load
        }
        boolean connected;
        boolean ok = false;
        try {
            connected = socket.connect(address);
            if (!connected) {
                setFlag(Native.EPOLLOUT); // Netty's own doConnect does the same: the event says when it is done
            }
            ok = true;
        } finally {
            if (!ok) {
                doClose();
            }
        }
        remote = address;
        return connected;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        InetSocketAddress r = remote;
        return r != null ? r : super.remoteAddress0();
    }

    @Override
    protected SocketAddress localAddress0() {
        SocketAddress l = super.localAddress0();
        if (l != null) {
            return l;
        }
        l = local;
        if (l == null && remote != null && socket.isOpen()) {
            try {
                l = local = socket.localAddress();
            } catch (RuntimeException closedMeanwhile) {
                return null;
            }
        }
        return l;
    }

    /**
     * Turns Nagle's algorithm off before any write but a first one that goes out in one system call, as nginx sets
     * TCP_NODELAY on an upstream connection only when it sends a request in parts: that saves a setsockopt per
     * connection in front of an app server that closes every connection, where the request is the only write.
     * Nagle can hold back only a small segment sent while an earlier small one is not yet acknowledged (Linux's
     * Minshall variant); a connection's first write, when it fits the send buffer and one writev, has no earlier
     * segment, and everything after it (the next request on a kept connection, a streamed body's parts, the rest of
     * a write the socket did not take at once, a WebSocket relay) is written with TCP_NODELAY on.
     */
    @Override
    protected void doWrite(ChannelOutboundBuffer in) throws Exception {
        if (!noDelay && (wrote || in.size() > Limits.IOV_MAX || in.totalPendingWriteBytes() > newSocketSendBuffer)) {
            socket.setTcpNoDelay(true);
            noDelay = true;
        }
        wrote = true;
        super.doWrite(in);
    }

    /** Closes the descriptor before Netty deregisters it, so that the deregistration makes no epoll_ctl(DEL). */
    @Override
    protected void doClose() throws Exception {
        try {
            socket.close();
        } finally {
            super.doClose();
        }
    }

    @Override
    public EpollChannelConfig config() {
        return config;
    }

    /** The generic options, and TCP_NODELAY (read from the socket; setting it on or off ends the deferral above). */
    static final class Config extends EpollChannelConfig {
        private final UpstreamEpollChannel channel;

        Config(UpstreamEpollChannel channel) {
            super(channel);
            this.channel = channel;
        }

        void gatheringWriteLimit(long limit) {
            setMaxBytesPerGatheringWrite(limit);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T getOption(ChannelOption<T> option) {
            if (option == ChannelOption.TCP_NODELAY) {
                try {
                    return (T) Boolean.valueOf(channel.socket.isTcpNoDelay());
                } catch (IOException e) {
                    throw new ChannelException(e);
                }
            }
            return super.getOption(option);
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            if (option == ChannelOption.TCP_NODELAY) {
                try {
                    channel.socket.setTcpNoDelay((Boolean) value);
                    channel.noDelay = true; // as asked from now on: doWrite no longer turns it on
                    return true;
                } catch (IOException e) {
                    throw new ChannelException(e);
                }
            }
            return super.setOption(option, value);
        }
    }
}
