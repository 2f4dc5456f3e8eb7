package io.portico.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * A chunked request body (RFC 9112 7.1), decoded into contents that are retained slices of the bytes received (no
 * copy), then its end with the trailer fields. The chunk-size line is at most {@value #MAX_LINE} bytes (size and
 * extensions, without the CRLF; Go's bound for chunk lines), or {@code max-request-line} when that is smaller, and
 * its extensions follow the grammar exactly
 * ({@code ; name [= token / quoted-string]}, optional whitespace around {@code ;} and {@code =}); a chunk's data
 * is followed by CRLF; the size is at most 2^31 - 1 (the body's limit is counted above, in bytes). Trailers are
 * field lines bounded and checked as the head's are; Content-Length, Transfer-Encoding and Trailer among them are
 * dropped (framing is never a trailer's to change). One per connection, reused for each chunked body.
 */
final class ChunkedBody {
    static final int MAX_LINE = 4096;
    private static final int MAX_CONTENT = RequestDecoder.MAX_CONTENT;
    private static final byte CR = '\r';
    private static final byte LF = '\n';

    private enum Part { SIZE_LINE, DATA, DATA_END, TRAILERS }

    private final int maxLine;
    private final int maxTrailerSize;
    private final SectionScanner trailers = new SectionScanner();
    private Part part;
    private long remaining;

    ChunkedBody(int maxLine, int maxTrailerSize) {
        this.maxLine = maxLine;
        this.maxTrailerSize = maxTrailerSize;
    }

    void start() {
        part = Part.SIZE_LINE;
    }

    /** Decodes what has arrived; true once the body's last content is in {@code out}. */
    boolean decode(ByteBuf in, List<Object> out) {
        for (;;) {
            switch (part) {
                case SIZE_LINE -> {
                    if (!sizeLine(in)) {
                        return false;
                    }
                }
                case DATA -> {
                    int n = (int) Math.min(Math.min(remaining, in.readableBytes()), MAX_CONTENT);
                    if (n == 0) {
                        return false;
                    }
                    out.add(new DefaultHttpContent(in.readRetainedSlice(n)));
                    remaining -= n;
                    if (remaining == 0) {
                        part = Part.DATA_END;
                    }
                }
                case DATA_END -> {
                    if (in.readableBytes() < 2) {
                        return false;
                    }
                    int i = in.readerIndex();
                    if (in.getByte(i) != CR || in.getByte(i + 1) != LF) {
                        throw new MalformedRequestException("chunk data not followed by CRLF");
                    }
                    in.skipBytes(2);
                    part = Part.SIZE_LINE;
                }
                case TRAILERS -> {
                    int end = trailers.end(in, in.readerIndex(), maxTrailerSize);
                    if (end < 0) {
                        return false;
                    }
                    out.add(end == 2 ? LastHttpContent.EMPTY_LAST_CONTENT : trailerFields(in, end, trailers.lines()));
                    in.skipBytes(end);
                    return true;
                }
            }
        }
    }

    /** Reads a whole chunk-size line: false while it has not arrived. */
    private boolean sizeLine(ByteBuf in) {
        int from = in.readerIndex();
        int readable = in.readableBytes();
        int lf = in.indexOf(from, from + Math.min(readable, maxLine + 2), LF);
        if (lf < 0) {
            if (readable >= maxLine + 2) {
                throw new MalformedRequestException("chunk-size line over " + maxLine + " bytes");
            }
            return false;
        }
        if (lf == from || in.getByte(lf - 1) != CR) {
            throw new MalformedRequestException("a chunk-size line ending in a bare LF");
        }
        long size = ChunkSizeLine.size(in, from, lf - 1);
        in.readerIndex(lf + 1);
        if (size == 0) {
            part = Part.TRAILERS;
            trailers.reset();
        } else {
            remaining = size;
            part = Part.DATA;
        }
        return true;
    }

    private static LastHttpContent trailerFields(ByteBuf in, int end, int lines) {
        byte[] b = new byte[end];
        in.getBytes(in.readerIndex(), b);
        FieldList fields = FieldList.decoded(lines);
        FieldSyntax.addLines(b, 0, end - 2, fields);
        fields.remove(HttpHeaderNames.CONTENT_LENGTH);
        fields.remove(HttpHeaderNames.TRANSFER_ENCODING);
        fields.remove(HttpHeaderNames.TRAILER);
        return new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, fields);
    }
}
