package io.portico.exchange;

import io.netty.handler.codec.http.HttpContent;

/** One request being answered. Every call comes on the client channel's event loop. */
public interface Exchange {

    /** The exchange of a request answered from its head (an error, a fixed response): body parts are released. */
    Exchange DISCARD_BODY = HttpContent::release;

    /** A part of the request body; the exchange owns it and must release it. The last one is a LastHttpContent. */
    void onContent(HttpContent content);

    /** The client went away before the response was complete: release what is held and cancel upstream work. */
    default void onClientClosed() {}

    /**
     * The client shut its sending side (a FIN) after the whole request reached the exchange, and the response is not
     * complete; the connection is still open. An HTTP/1.1 client may do that and still read its answer (half-close),
     * which is what the default does: keep answering, and the server closes the connection after the response. A
     * proxy exchange aborts instead, as nginx does unless {@code proxy_ignore_client_abort}: it closes its upstream
     * connection and the client's. Called at most once per exchange, after {@link #onContent} of the last part.
     */
    default void onClientInputShutdown() {}
}
