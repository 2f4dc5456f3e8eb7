package io.portico.http1;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.TooLongHttpHeaderException;

/**
 * Finds the empty line that ends a section of field lines (a request head's fields, a chunked body's trailers) in
 * bytes that arrive a piece at a time, without consuming them: it remembers where the line it waits for starts and
 * how far it has looked, so a head sent byte by byte is scanned once. Bounds the section as
 * {@code limits.max-header-size} is counted: the field lines as sent, each with its CRLF (obs-fold continuation
 * lines included), without the empty line; one byte over is refused as soon as it has arrived, so no more than the
 * limit plus two bytes is ever held. A line that ends in a bare LF is refused (RFC 9112 2.2 lets a server refuse it,
 * and the ambiguity between CRLF and LF is a smuggling vector). Offsets are from the section's start, which the
 * caller gives each time (the buffer's indexes move when the decoder's cumulation discards read bytes).
 */
final class SectionScanner {
    private static final byte CR = '\r';
    private static final byte LF = '\n';

    /** Offset of the first line not yet seen whole. */
    private int lineStart;
    /** Offset up to which no LF was found. */
    private int searched;
    /** Lines seen whole before the empty line. */
    private int lines;

    void reset() {
        lineStart = 0;
        searched = 0;
        lines = 0;
    }

    /** The field lines of the section found (continuation lines included): room enough for its fields. */
    int lines() {
        return lines;
    }

    /**
     * The offset just past the empty line that ends the section starting at {@code in[from]}, or -1 while it has not
     * arrived whole.
     */
    int end(ByteBuf in, int from, int max) {
        long available = in.writerIndex() - from;
        int limit = (int) Math.min(available, max + 2L);
        for (;;) {
            int lf = in.indexOf(from + searched, from + limit, LF);
            if (lf < 0) {
                if (available >= max + 2L) {
                    throw new TooLongHttpHeaderException("header fields over max-header-size " + max);
                }
                searched = limit;
                return -1;
            }
            int at = lf - from;
            if (at == lineStart || in.getByte(lf - 1) != CR) {
                throw new MalformedRequestException("a line ending in a bare LF");
            }
            if (at == lineStart + 1) {
                return at + 1; // CRLF alone: the empty line
            }
            lineStart = at + 1;
            searched = lineStart;
            lines++;
        }
    }
}
