package io.portico.server;

import io.netty.channel.ChannelOption;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringChannelOption;
import io.netty.channel.uring.IoUringDatagramChannel;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.portico.config.IoTransport;
import java.util.function.Consumer;

/**
 * An event-loop I/O transport and its channel classes, for the server, for the connections of shared zones that
 * run on its loops (their Redis channels and DNS resolver's, {@code ratelimit.StoreLanes}) and for the benchmark's
 * client: the one table of which channel class registers on which loop. The native ones give every server loop
 * its own SO_REUSEPORT listener ({@code reusePort}); NIO has one listener per address.
 */
public record Transport(String name, IoHandlerFactory ioHandlerFactory, Class<? extends ServerChannel> serverChannel,
        Class<? extends SocketChannel> socketChannel, Class<? extends DatagramChannel> datagramChannel,
        ChannelOption<Boolean> reusePort) {

    private static final Transport NIO = new Transport("nio", NioIoHandler.newFactory(),
            NioServerSocketChannel.class, NioSocketChannel.class, NioDatagramChannel.class, null);

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
                yield epoll();
            }
            case IO_URING -> {
                if (!IoUring.isAvailable()) {
                    throw unavailable("io_uring", IoUring.unavailabilityCause());
                }
                yield ioUring();
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
            return ioUring();
        }
        if (Epoll.isAvailable()) {
            return epoll();
        }
        note.accept("native epoll not available (" + reason(Epoll.unavailabilityCause()) + "); using NIO");
        return NIO;
    }

    /** Built only once io_uring is known to load, as {@link #epoll}. */
    private static Transport ioUring() {
        return new Transport("io_uring", IoUringIoHandler.newFactory(), IoUringServerSocketChannel.class,
                IoUringSocketChannel.class, IoUringDatagramChannel.class, IoUringChannelOption.SO_REUSEPORT);
    }

    /** Built only once epoll is known to load: its factory throws where the native library is missing. */
    private static Transport epoll() {
        return new Transport("epoll", EpollIoHandler.newFactory(), EpollServerSocketChannel.class,
                EpollSocketChannel.class, EpollDatagramChannel.class, EpollChannelOption.SO_REUSEPORT);
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
