package io.portico.upstream;

import io.netty.buffer.ByteBuf;

/**
 * A request head that writes its own header lines: the HTTP upstream encoder writes the request line from the
 * message as usual, then calls {@link #writeHeaderLines} instead of encoding {@code headers()}, which then only tell
 * the encoder how the body is framed. The proxy's forwarded head is one: it writes the client's fields straight
 * from where they were decoded, with the few it rewrites, instead of copying them into a second headers object.
 */
public interface HeadLines {
    /** Writes every header line, each ended by CRLF, without the empty line that ends the head. */
    void writeHeaderLines(ByteBuf buf);
}
