package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpResponse;

/**
 * Sees an upstream's response as it is relayed, for a response cache: the head as received, each body part, and
 * how the exchange ended. It may take the answer over: at the head (the relay then reads the body to its end for
 * the tap and writes nothing to the client), or when the upstream failed before the head. Called on the client's
 * event loop; nothing passed is owned by the tap (it copies what it keeps).
 */
public interface ResponseTap {
    /** A tap that only watches nothing: the plain proxy. */
    ResponseTap NONE = new ResponseTap() {};

    /**
     * The upstream's final response head, before it is rewritten for the client (the tap may add headers for the
     * client to it). False: the tap answers the client itself, and the body only goes to {@link #content}.
     */
    default boolean head(HttpResponse response) {
        return true;
    }

    /** A part of the body (not owned, not to be modified). */
    default void content(ByteBuf content) {}

    /** The whole response arrived (the last part went to {@link #content} first). */
    default void end() {}

    /**
     * The upstream failed before its head reached the client (connect error, reset, timeout, no live server).
     * True when the tap answered the client itself; false lets the client get the failure's status.
     *
     * @param timeout the failure is a timeout (504) rather than an error (502, 503)
     */
    default boolean failed(boolean timeout) {
        return false;
    }

    /** The exchange ended; after {@link #end}, a no-op, otherwise the response is incomplete. Called once or more. */
    default void finished() {}

    /**
     * Whether the tap still means to keep the response (a cache fill that may store it): a client's FIN then does
     * not abort the exchange, which reads on for the tap, as nginx's does for a cacheable response.
     */
    default boolean storing() {
        return false;
    }

    /** Whether no client waits on this exchange (a background refresh): every response goes to the tap only. */
    default boolean detached() {
        return false;
    }
}
