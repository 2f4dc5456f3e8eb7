package io.portico.http1;

import io.netty.buffer.ByteBuf;

/**
 * The grammar of a chunk-size line (RFC 9112 7.1.1):
 * {@code chunk-size *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )}, read where it lies in the
 * received buffer. Extensions are checked and ignored.
 */
final class ChunkSizeLine {
    private ChunkSizeLine() {}

    /** The size the line {@code b[i, end)} (without its CRLF) gives, or a refusal when it breaks the grammar. */
    static long size(ByteBuf b, int i, int end) {
        int start = i;
        long size = 0;
        for (int d; i < end && (d = hex(b.getByte(i))) >= 0; i++) {
            size = size << 4 | d;
            if (size > Integer.MAX_VALUE) {
                throw new MalformedRequestException("chunk size over 2^31 - 1");
            }
        }
        if (i == start || !extensions(b, i, end)) {
            throw new MalformedRequestException("malformed chunk-size line");
        }
        return size;
    }

    private static boolean extensions(ByteBuf b, int i, int end) {
        while (i < end) {
            i = skipWhitespace(b, i, end);
            if (i == end || b.getByte(i) != ';') {
                return false;
            }
            i = skipWhitespace(b, i + 1, end);
            int name = i;
            i = token(b, i, end);
            if (i == name) {
                return false;
            }
            int eq = skipWhitespace(b, i, end);
            if (eq < end && b.getByte(eq) == '=') {
                i = skipWhitespace(b, eq + 1, end);
                if (i < end && b.getByte(i) == '"') {
                    i = quoted(b, i + 1, end);
                    if (i < 0) {
                        return false;
                    }
                } else {
                    int value = i;
                    i = token(b, i, end);
                    if (i == value) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static int hex(byte c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static int skipWhitespace(ByteBuf b, int i, int end) {
        while (i < end && FieldSyntax.isOws(b.getByte(i))) {
            i++;
        }
        return i;
    }

    private static int token(ByteBuf b, int i, int end) {
        while (i < end && FieldSyntax.tchar(b.getByte(i))) {
            i++;
        }
        return i;
    }

    /** The index after the closing quote of a quoted-string whose opening quote is before {@code i}, or -1. */
    private static int quoted(ByteBuf b, int i, int end) {
        while (i < end) {
            int c = b.getByte(i) & 0xff;
            if (c == '"') {
                return i + 1;
            }
            if (c == '\\') {
                if (++i == end) {
                    return -1;
                }
                c = b.getByte(i) & 0xff;
            }
            if (c != '\t' && (c < 0x20 || c == 0x7f)) {
                return -1; // qdtext and quoted-pair: HTAB, SP, VCHAR, obs-text
            }
            i++;
        }
        return -1;
    }
}
