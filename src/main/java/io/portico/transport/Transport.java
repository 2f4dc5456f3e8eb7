package io.portico.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringDomainSocketChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.portico.config.IoTransport;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * An event-loop I/O transport (io_uring, epoll or NIO) and what its channels can do: the one table of which channel
 * class registers on which loop (the server's listeners and client connections, its upstream connections, the
 * connections of shared zones and their DNS resolver's, the benchmark's client), and the answers that differ by
 * transport (corking, how a file region is sent, what a close needs, the options a native transport names its own
 * way). The native ones give every server loop its own SO_REUSEPORT listener ({@link #reusePort}); NIO has one
 * listener per address.
 *
 * <p>Three instances, compared by identity. One is in use only once it is known to load ({@link #select}, or
 * {@link #of} a loop or channel that exists): a native one's {@link #ioHandlerFactory} throws where its library
 * does not load; its other answers name classes and options only, which load anywhere.
 */
public final class Transport {
    public static final Transport IO_URING = new Transport("io_uring", IoUringIoHandler::newFactory,
            IoUringServerSocketChannel.class, IoUringSocketChannel.class, IoUringDatagramChannel.class,
            IoUringChannelOption.SO_REUSEPORT, IoUringChannelOption.TCP_CORK, IoUringChannelOption.class);
    public static final Transport EPOLL = new Transport("epoll", EpollIoHandler::newFactory,
            EpollServerSocketChannel.class, EpollSocketChannel.class, EpollDatagramChannel.class,
            EpollChannelOption.SO_REUSEPORT, EpollChannelOption.TCP_CORK, EpollChannelOption.class);
    public static final Transport NIO = new Transport("nio", NioIoHandler::newFactory,
            NioServerSocketChannel.class, NioSocketChannel.class, NioDatagramChannel.class, null, null, null);

    private final String name;
    private final Supplier<IoHandlerFactory> ioHandlerFactory;
    private final Class<? extends ServerChannel> serverChannel;
    private final Class<? extends SocketChannel> socketChannel;
    private final Class<? extends DatagramChannel> datagramChannel;
    private final ChannelOption<Boolean> reusePort;
    private final ChannelOption<Boolean> cork;
    /** The class that declares this transport's own options ("...EpollChannelOption#TCP_KEEPIDLE"); NIO: null. */
    private final Class<?> ownOptions;

    private Transport(String name, Supplier<IoHandlerFactory> ioHandlerFactory,
            Class<? extends ServerChannel> serverChannel, Class<? extends SocketChannel> socketChannel,
            Class<? extends DatagramChannel> datagramChannel, ChannelOption<Boolean> reusePort,
            ChannelOption<Boolean> cork, Class<?> ownOptions) {
        this.name = name;
        this.ioHandlerFactory = ioHandlerFactory;
        this.serverChannel = serverChannel;
        this.socketChannel = socketChannel;
        this.datagramChannel = datagramChannel;
        this.reusePort = reusePort;
        this.cork = cork;
        this.ownOptions = ownOptions;
    }

    /**
     * The transport {@code choice} names. {@code auto} is io_uring where it loads, else epoll, else NIO (with
     * {@code note} saying why each was passed over); a transport named explicitly that cannot load here is an
     * error, as nginx refuses an event method the system lacks.
     */
    public static Transport select(IoTransport choice, Consumer<String> note) throws TransportUnavailableException {
        return switch (choice) {
            case AUTO -> auto(note);
            case EPOLL -> {
                if (!Epoll.isAvailable()) {
                    throw unavailable("epoll", Epoll.unavailabilityCause());
                }
                yield EPOLL;
            }
            case IO_URING -> {
                if (!IoUring.isAvailable()) {
                    throw unavailable("io_uring", IoUring.unavailabilityCause());
                }
                yield IO_URING;
            }
            case NIO -> NIO;
        };
    }

    /** The default transport: what {@code transport = auto} picks. */
    public static Transport detect() {
        return auto(note -> { });
    }

    /**
     * io_uring first: one ring submission carries many reads and writes, which on the benchmark box (paravirtualized,
     * where a system call is dear) proxied and served at least as well as epoll in every row measured side by side
     * (docs/benchmarks.md, io_uring). Kernels or container runtimes that forbid io_uring get epoll, quietly: that is
     * the common case there, not news.
     */
    private static Transport auto(Consumer<String> note) {
        if (IoUring.isAvailable()) {
            return IO_URING;
        }
        if (Epoll.isAvailable()) {
            return EPOLL;
        }
        note.accept("native epoll not available (" + reason(Epoll.unavailabilityCause()) + "); using NIO");
        return NIO;
    }

    /** The transport of {@code loop}: the one whose channels can register with it. */
    public static Transport of(EventLoop loop) {
        if (loop instanceof IoEventLoop io) {
            if (io.isIoType(IoUringIoHandler.class)) {
                return IO_URING;
            }
            if (io.isIoType(EpollIoHandler.class)) {
                return EPOLL;
            }
        }
        return NIO;
    }

    /**
     * The transport of a TCP connection's channel, asked per response (so two type checks, no loop lookup). Any other
     * channel (an HTTP/2 stream's, whose bytes its connection's codec writes; a unix socket's; a test's
     * {@code EmbeddedChannel}) answers as NIO's do: no socket options, nothing at close, file regions as Netty sends
     * them.
     */
    public static Transport of(Channel channel) {
        if (channel instanceof IoUringSocketChannel) {
            return IO_URING;
        }
        if (channel instanceof EpollSocketChannel || channel instanceof UpstreamEpollChannel) {
            return EPOLL;
        }
        return NIO;
    }

    /** {@code io_uring}, {@code epoll} or {@code nio}: what the configuration and the logs call it. */
    public String name() {
        return name;
    }

    /** A new factory of this transport's I/O handlers, for an event loop group; throws where it does not load. */
    public IoHandlerFactory ioHandlerFactory() {
        return ioHandlerFactory.get();
    }

    public Class<? extends ServerChannel> serverChannel() {
        return serverChannel;
    }

    /** The TCP channel class that registers on this transport's loops (a {@code Bootstrap}'s, Lettuce's, DNS's). */
    public Class<? extends SocketChannel> socketChannel() {
        return socketChannel;
    }

    public Class<? extends DatagramChannel> datagramChannel() {
        return datagramChannel;
    }

    /** SO_REUSEPORT as this transport names it, or null where it has none (NIO: one listener per address). */
    public ChannelOption<Boolean> reusePort() {
        return reusePort;
    }

    /**
     * TCP_CORK as this transport names it (nginx's {@code tcp_nopush}), or null where it has none (NIO). Set on a
     * channel of {@link #of(Channel)}.
     */
    public ChannelOption<Boolean> cork() {
        return cork;
    }

    /**
     * Whether a {@code FileRegion} goes out through a pipe made for it (io_uring: pipe2 and two closes outside the
     * ring, then two splices per 64 KiB) rather than by sendfile: dearer than writing bytes already in memory, so
     * the static responder sends small files from memory there, and the rest from a mapping.
     */
    public boolean splicesFileRegions() {
        return this == IO_URING;
    }

    /**
     * Adds, first in a new connection's pipeline, what this transport needs so that a close completes when the peer
     * reads nothing: io_uring's {@link UringCloseHandler}, which shuts the sending side of a close that a stuck
     * send holds; nothing on the others, whose close never waits on a send.
     */
    public void addCloseHandler(ChannelPipeline pipeline, String name) {
        if (this == IO_URING) {
            pipeline.addLast(name, UringCloseHandler.INSTANCE);
        }
    }

    /**
     * Whether a read asked for before a new channel is registered ({@code Channel.Unsafe#beginRead}) is kept and
     * carried by the registration: epoll's, whose first {@code epoll_ctl(ADD)} then has EPOLLIN, one system call
     * fewer than the {@code epoll_ctl(MOD)} of a read after it.
     */
    public boolean readsBeforeRegistration() {
        return this == EPOLL;
    }

    /** Whether unix domain socket upstreams can be reached: with the native transports only. */
    public boolean hasUnixSockets() {
        return this != NIO;
    }

    /**
     * Makes the channel of a connection Portico opens to {@code remote} (an upstream server: a TCP address, or a
     * unix socket's {@link DomainSocketAddress}). An epoll TCP socket is opened in the address's own family: the
     * default dual-stack IPv6 socket costs a setsockopt per connection and the kernel's v4-mapped path on every
     * connect, which shows when an app server (gunicorn) closes every connection and each request opens one; and it
     * is {@link UpstreamEpollChannel}, which spares such a connection more system calls.
     */
    public ChannelFactory<? extends Channel> upstreamChannel(SocketAddress remote) {
        if (remote instanceof DomainSocketAddress) {
            if (this == EPOLL) {
                return EpollDomainSocketChannel::new;
            }
            if (this == IO_URING) {
                return IoUringDomainSocketChannel::new;
            }
            throw new IllegalStateException("unix socket upstream unix:" + ((DomainSocketAddress) remote).path()
                    + " needs a native transport (epoll or io_uring)");
        }
        if (this == NIO) {
            return NioSocketChannel::new;
        }
        if (this == IO_URING) {
            return IoUringSocketChannel::new; // dual-stack; Netty's io_uring channel takes no address family
        }
        SocketProtocolFamily family = ((InetSocketAddress) remote).getAddress() instanceof Inet6Address
                ? SocketProtocolFamily.INET6 : SocketProtocolFamily.INET;
        return () -> new UpstreamEpollChannel(family);
    }

    /**
     * The address an {@link #upstreamChannel} connects to for a pooled connection: an epoll TCP channel is given its
     * server's address in a form that spares it asking the socket for the peer's address afterwards (see
     * {@link UpstreamEpollChannel}); {@code remote} itself for the others, and for a {@code Bootstrap}'s connect.
     */
    public SocketAddress connectAddress(SocketAddress remote) {
        if (this == EPOLL && remote instanceof InetSocketAddress inet) {
            return new UpstreamEpollChannel.Target(inet);
        }
        return remote;
    }

    /**
     * {@code option} as this transport names it: a native transport's option ({@code EpollChannelOption#TCP_KEEPIDLE})
     * becomes this transport's option of the same name, or null where it has none (NIO, or a name only the other
     * native transport has); portable options pass as they are. For a library that sets the options of the
     * transport it would have chosen itself (Lettuce's keep-alive timings), on a loop of another: Netty ignores an
     * option of another transport, with a warning per connection ("Unknown channel option").
     */
    public ChannelOption<Object> ownOption(ChannelOption<Object> option) {
        String name = option.name();
        int hash = name.indexOf('#');
        if (hash < 0) {
            return option;
        }
        String declaredBy = name.substring(0, hash);
        if (!declaredBy.equals(EPOLL.ownOptions.getName()) && !declaredBy.equals(IO_URING.ownOptions.getName())) {
            return option;
        }
        if (ownOptions == null) {
            return null;
        }
        String renamed = ownOptions.getName() + name.substring(hash);
        return ChannelOption.exists(renamed) ? ChannelOption.valueOf(renamed) : null;
    }

    @Override
    public String toString() {
        return name;
    }

    private static TransportUnavailableException unavailable(String name, Throwable cause) {
        return new TransportUnavailableException(name + " does not load on this system (" + reason(cause) + ")", cause);
    }

    /** A transport chosen by name does not load here. */
    public static final class TransportUnavailableException extends Exception {
        TransportUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static String reason(Throwable cause) {
        return cause == null ? "unknown reason" : String.valueOf(cause.getMessage());
    }
}
