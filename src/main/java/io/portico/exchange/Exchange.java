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
}
