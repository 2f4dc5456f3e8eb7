package io.portico.connection;

import io.netty.channel.ChannelFuture;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;

/**
 * A stage that acts on the moments of a client channel's exchanges, which one stage detects for all
 * ({@link ExchangeEvents}): the keep-alive stage of an HTTP/1.1 connection, the exchange stage of an HTTP/2 stream.
 * Every method runs on the channel's event loop, one exchange at a time (pipelined requests wait their turn).
 */
public interface ExchangeObserver {
    /** A request's head has come; {@code bodyFollows}: body bytes are still to be read. */
    default void requestStarted(HttpRequest head, boolean bodyFollows) {}

    /** The request's last part has come (right after {@link #requestStarted} for a request without a body). */
    default void requestEnded() {}

    /** The response's head (not an interim 1xx) is being written. */
    default void responseStarted(HttpResponse head) {}

    /**
     * The response's last part has been written through every stage (its {@code LastHttpContent}).
     *
     * @param written completes when it has gone out (or failed); null unless the observer asked for it
     *     ({@link ExchangeEvents#observe(ExchangeObserver, boolean)})
     * @param keepAlive the channel reads another request; false when it closes after this response (HTTP/1.1), or
     *     is an HTTP/2 stream, which carries one exchange
     */
    default void responseEnded(ChannelFuture written, boolean keepAlive) {}
}
