package io.portico.bench;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.util.Locale;

/** Maps the exceptions a socket operation fails with to an {@link ErrorClass}, by errno text along the cause chain. */
final class ErrorClassifier {

    private ErrorClassifier() {
    }

    /** Classifies a failure to open a connection. */
    static ErrorClass connectFailure(Throwable t) {
        ErrorClass common = byMessage(t);
        if (common != null) {
            return common;
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ConnectTimeoutException) {
                return ErrorClass.CONNECT_TIMEOUT;
            }
            if (c instanceof ConnectException) {
                return ErrorClass.CONNECT_REFUSED;
            }
        }
        return ErrorClass.OTHER;
    }

    /** Classifies a failure on an open connection. */
    static ErrorClass ioFailure(Throwable t) {
        ErrorClass common = byMessage(t);
        return common != null ? common : ErrorClass.OTHER;
    }

    private static ErrorClass byMessage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
            if (m.contains("too many open files")) {
                return ErrorClass.CLIENT_OUT_OF_FILES;
            }
            if (m.contains("cannot assign requested address")) {
                return ErrorClass.CLIENT_OUT_OF_PORTS;
            }
            if (m.contains("connection refused")) {
                return ErrorClass.CONNECT_REFUSED;
            }
            if (m.contains("connection timed out")) {
                return ErrorClass.CONNECT_TIMEOUT;
            }
            if (m.contains("connection reset") || m.contains("broken pipe")) {
                return ErrorClass.RESET;
            }
        }
        return null;
    }
}
