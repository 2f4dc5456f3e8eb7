package io.portico.config;

/**
 * Which Netty transport the event loops use. {@code auto} is native epoll where it loads and NIO elsewhere;
 * {@code io_uring} is chosen explicitly, and a server whose chosen transport cannot load here does not start.
 */
public enum IoTransport {
    AUTO,
    EPOLL,
    IO_URING,
    NIO
}
