package io.portico.exchange;

import io.netty.handler.codec.http.HttpRequest;

/**
 * Answers the requests routed to one location: static files, an upstream pool, or a fixed response. One instance
 * per location, shared by every event loop, so implementations are thread-safe; per-request state lives in the
 * {@link Exchange} it opens.
 */
public interface Responder {

    /**
     * Starts answering {@code request} on the client's event loop. The request body, if any, follows through
     * {@link Exchange#onContent}; the response is written to {@link ClientExchange#channel()} and ends with a
     * {@code LastHttpContent} (or a {@code FullHttpResponse}), which is how the server knows it is complete.
     */
    Exchange open(ClientExchange client, HttpRequest request);
}
