package io.portico.compress;

import io.netty.buffer.ByteBuf;

/** One response body's encoder: parts in, compressed bytes out. Used on one thread at a time. */
interface BodyEncoder {

    /**
     * Encodes {@code in} (read, not released: the caller owns it) and returns what is ready to send (everything
     * so far when {@link #flushEachPart} says so); after {@code last}, the end of the stream too. The returned
     * buffer is the caller's (it may be empty).
     */
    ByteBuf encode(ByteBuf in, boolean last);

    /** Frees what the encoder holds; a reusable one stays usable for the next response after {@link #reset}. */
    void close();

    /** Ready for a new body (a reusable encoder), or a no-op. */
    default void reset() {}

    /**
     * Whether each part must reach the client as it comes (a body of unknown length: server-sent events, a
     * long poll) or may wait inside the encoder for more input (a body of known length), as nginx's gzip flushes
     * only a buffer marked flush. Fewer flushes mean fewer deflate blocks: less CPU and smaller output.
     */
    default void flushEachPart(boolean flush) {}
}
