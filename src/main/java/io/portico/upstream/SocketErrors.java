package io.portico.upstream;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;

/**
 * A socket failure in a few words an operator can grep for ({@code connect refused}, {@code connection reset}),
 * for the access log's note and the error log: never an exception's class name or its whole message, whose text
 * differs per transport (NIO, epoll, io_uring) and carries addresses the log already has.
 */
public final class SocketErrors {
    private SocketErrors() {}

    /** A failure to connect. */
    public static String connect(Throwable cause) {
        if (cause instanceof ConnectTimeoutException) {
            return "connect timed out";
        }
        if (cause instanceof NoRouteToHostException || mentions(cause, "no route")) {
            return "connect failed: no route to host";
        }
        if (mentions(cause, "refused")) {
            return "connect refused";
        }
        if (mentions(cause, "no such file")) {
            return "connect failed: no such socket file";
        }
        return cause instanceof ConnectException ? "connect failed" : "connect failed: " + kind(cause);
    }

    /** A failure on an open connection; {@code null} is a plain close by the peer. */
    public static String connection(Throwable cause) {
        if (cause == null || cause instanceof ClosedChannelException) {
            return "connection closed";
        }
        if (mentions(cause, "reset")) {
            return "connection reset";
        }
        if (mentions(cause, "broken pipe")) {
            return "broken pipe";
        }
        return "connection failed: " + kind(cause);
    }

    private static boolean mentions(Throwable cause, String text) {
        String m = cause.getMessage();
        return m != null && m.toLowerCase(Locale.ROOT).contains(text);
    }

    /** The exception's simple class name: one word, no spaces, nothing the peer chose. */
    private static String kind(Throwable cause) {
        return cause.getClass().getSimpleName();
    }
}
