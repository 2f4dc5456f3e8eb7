package io.portico.http1;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * RFC 9110/9112's syntax of a request's field lines (head and trailer section), read from the bytes of one
 * section: a name is a token followed directly by a colon (whitespace before the colon is refused, RFC 9112 5.1),
 * a value is {@code field-content} with its surrounding OWS taken off (no control byte but HTAB, no DEL; obs-text
 * passes), and a line that starts with SP or HTAB (obs-fold, RFC 9112 5.2) joins the value before it with one space.
 * A value is a view over the section's bytes, not a copy (Host's excepted, see {@link #addLine}). Immutable tables only: any thread.
 */
final class FieldSyntax {
    private static final boolean[] TCHAR = new boolean[128];

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
    }

    private FieldSyntax() {}

    static boolean tchar(byte c) {
        return c >= 0 && TCHAR[c];
    }

    static boolean isOws(byte c) {
        return c == ' ' || c == '\t';
    }

    /** Adds every field line of {@code b[from, end)}, each ended by its CRLF (a head's, or a chunked body's trailers). */
    static void addLines(byte[] b, int from, int end, FieldList fields) {
        for (int start = from; start < end; ) {
            int cr = start;
            while (b[cr] != '\r' || b[cr + 1] != '\n') {
                cr++;
            }
            addLine(b, start, cr, fields);
            start = cr + 2;
        }
    }

    /**
     * Adds the field line {@code b[start, end)} (without its CRLF) to {@code fields}, or unfolds it into the last
     * field's value.
     */
    static void addLine(byte[] b, int start, int end, FieldList fields) {
        if (isOws(b[start])) {
            unfold(b, start, end, fields);
            return;
        }
        int colon = start;
        while (colon < end && tchar(b[colon])) {
            colon++;
        }
        if (colon == start || colon == end || b[colon] != ':') {
            throw new MalformedRequestException(colon < end && b[colon] != ':'
                    ? "invalid character 0x" + Integer.toHexString(b[colon] & 0xff) + " in a field name"
                    : "a field line without a name and colon");
        }
        int from = afterOws(b, colon + 1, end);
        int to = beforeOws(b, from, end);
        checkValue(b, from, to);
        AsciiString name = FieldNames.of(b, start, colon - start);
        CharSequence value;
        if (from == to) {
            value = AsciiString.EMPTY_STRING;
        } else if (name.length() == 4 && HttpHeaderNames.HOST.contentEqualsIgnoreCase(name)) {
            // Routing reads Host as a String on every request: one String now is less than a view and a String.
            value = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        } else {
            value = new AsciiString(b, from, to - from, false);
        }
        fields.append(name, value);
    }

    /** The first index of {@code b[from, to)} that is not optional whitespace, or {@code to}. */
    private static int afterOws(byte[] b, int from, int to) {
        while (from < to && isOws(b[from])) {
            from++;
        }
        return from;
    }

    /** The end of {@code b[from, to)} without its trailing optional whitespace. */
    private static int beforeOws(byte[] b, int from, int to) {
        while (to > from && isOws(b[to - 1])) {
            to--;
        }
        return to;
    }

    /** obs-fold: the previous value, one space, this line without its OWS (RFC 9112 5.2 lets a server do that). */
    private static void unfold(byte[] b, int start, int end, FieldList fields) {
        int last = fields.size() - 1;
        if (last < 0) {
            throw new MalformedRequestException("a continuation line before any field");
        }
        int from = afterOws(b, start, end);
        int to = beforeOws(b, from, end);
        checkValue(b, from, to);
        CharSequence before = fields.value(last);
        if (from == to) {
            return;
        }
        byte[] joined = new byte[before.length() + 1 + to - from];
        for (int i = 0; i < before.length(); i++) {
            joined[i] = (byte) before.charAt(i);
        }
        joined[before.length()] = ' ';
        System.arraycopy(b, from, joined, before.length() + 1, to - from);
        fields.replaceValue(last, new AsciiString(joined, false));
    }

    /** field-content: the first byte visible, then no control byte but HTAB, and no DEL. */
    private static void checkValue(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xff;
            if ((c < 0x20 && c != '\t') || c == 0x7f) {
                throw new MalformedRequestException("invalid character 0x" + Integer.toHexString(c)
                        + " in a field value");
            }
        }
    }
}
