package io.portico.config;

import java.util.Locale;

/**
 * Which Netty transport the event loops use. {@code auto} is io_uring where it loads, else native epoll, else NIO;
 * a server whose transport chosen by name cannot load here does not start.
 */
public enum IoTransport {
    AUTO,
    EPOLL,
    IO_URING,
    NIO;

    /** The name as written in the configuration and on the command line: {@code io_uring}, as Linux spells it. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Reads a name as {@link #configName} writes it ({@code io-uring} too); null when it names none. */
    public static IoTransport parse(String s) {
        for (IoTransport t : values()) {
            if (t.configName().equalsIgnoreCase(s.replace('-', '_'))) {
                return t;
            }
        }
        return null;
    }
}
