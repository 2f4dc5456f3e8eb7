package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpObjectDecoder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The chunk-size line of a chunked request body (RFC 9112 7.1), checked before Netty's decoder reads it: at most
 * {@value #MAX_LINE} bytes (size and extensions, without the CRLF; Go's bound for chunk lines), and extensions
 * that follow the grammar exactly ({@code ; name [= token / quoted-string]},
 * optional whitespace around {@code ;} and {@code =}). Netty reads a chunk-size line with the request line's
 * reader, so without this a long extension got 414 and a bare {@code ;} passed.
 *
 * <p>Netty keeps no hook at that state, so its decoder's state field is read (one field read per decode call;
 * resolved once, and a Netty that renamed it fails at class load, which every test would show).
 */
final class ChunkLines {
    static final int MAX_LINE = 4096;
    private static final byte CR = '\r';
    private static final byte LF = '\n';
    private static final boolean[] TCHAR = new boolean[128];
    private static final VarHandle STATE;
    private static final Object READ_CHUNK_SIZE;

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            TCHAR[Character.toUpperCase(c)] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TCHAR[c] = true;
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(HttpObjectDecoder.class, MethodHandles.lookup());
            Class<?> state = Class.forName(HttpObjectDecoder.class.getName() + "$State");
            STATE = lookup.findVarHandle(HttpObjectDecoder.class, "currentState", state);
            READ_CHUNK_SIZE = stateNamed(state, "READ_CHUNK_SIZE");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError("Netty's HttpObjectDecoder no longer has its currentState: " + e);
        }
    }

    private ChunkLines() {}

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object stateNamed(Class<?> state, String name) {
        return Enum.valueOf((Class) state, name);
    }

    /** Whether the decoder's next bytes are a chunk-size line. */
    static boolean atSizeLine(HttpObjectDecoder decoder) {
        return STATE.get(decoder) == READ_CHUNK_SIZE;
    }

    /** Why the chunk-size line at the start of {@code in} is refused, or null (also when it is not complete yet). */
    static Exception check(ByteBuf in) {
        int from = in.readerIndex();
        int readable = in.readableBytes();
        int lf = in.indexOf(from, from + Math.min(readable, MAX_LINE + 2), LF);
        if (lf < 0) {
            return readable >= MAX_LINE + 2 ? new InvalidChunkLineException("chunk-size line over " + MAX_LINE
                    + " bytes") : null;
        }
        if (lf == from || in.getByte(lf - 1) != CR) {
            return null; // a bare LF: Netty's strict line parsing refuses it
        }
        return valid(in, from, lf - 1) ? null : new InvalidChunkLineException("malformed chunk-size line");
    }

    /** chunk-size *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ), the bytes in [i, end). */
    private static boolean valid(ByteBuf b, int i, int end) {
        int start = i;
        while (i < end && hex(b.getByte(i))) {
            i++;
        }
        if (i == start) {
            return false;
        }
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

    private static boolean hex(byte c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    private static int skipWhitespace(ByteBuf b, int i, int end) {
        while (i < end && (b.getByte(i) == ' ' || b.getByte(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int token(ByteBuf b, int i, int end) {
        while (i < end) {
            byte c = b.getByte(i);
            if (c < 0 || !TCHAR[c]) {
                break;
            }
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
                if (c != '\t' && (c < 0x20 || c == 0x7f)) {
                    return -1;
                }
            } else if (c != '\t' && (c < 0x20 || c == 0x7f)) {
                return -1; // qdtext: HTAB, SP, VCHAR except quote and backslash, obs-text
            }
            i++;
        }
        return -1;
    }

    /** A chunk-size line that is too long or does not follow the grammar: 400, and the connection is closed. */
    static final class InvalidChunkLineException extends IllegalArgumentException {
        InvalidChunkLineException(String message) {
            super(message);
        }
    }
}
