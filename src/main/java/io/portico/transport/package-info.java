/**
 * The event-loop transports (io_uring, epoll, NIO) and what their channels can do, asked in one place:
 * {@link io.portico.transport.Transport} names the channel classes that register on each transport's loops (the
 * server's listeners and client connections, upstream connections, the shared zones' Redis and DNS channels, the
 * benchmark's client) and answers what differs by transport: TCP_CORK, whether a file region is spliced through a
 * pipe, what a close needs ({@link io.portico.transport.UringCloseHandler} on io_uring), the native options' own
 * names. {@link io.portico.transport.UpstreamEpollChannel} is epoll's channel for upstream TCP connections. No other
 * package checks a channel's class or a loop's I/O type. Depends on {@code config} only (the transport choice).
 *
 * <p>Threading: {@code Transport}'s instances are immutable and shared; {@code UringCloseHandler} is stateless and
 * shared; an {@code UpstreamEpollChannel} is used on its event loop only, as every channel.
 */
package io.portico.transport;
