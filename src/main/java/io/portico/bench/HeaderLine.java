package io.portico.bench;

/**
 * The few header lines {@link ResponseParser} reads (Content-Length, Transfer-Encoding, Connection) and chunk-size
 * lines, read from a copy of the line in a reused byte array: ASCII, case-insensitive, no String per line, and
 * plain array reads that compile to little (a ByteBuf read per byte is a virtual call with checks). Other headers
 * never get here: the parser skips them after a look at their first letter ({@link #mayMatter}).
 */
final class HeaderLine {

    private static final String CONTENT_LENGTH = "content-length";
    private static final String TRANSFER_ENCODING = "transfer-encoding";
    private static final String CONNECTION = "connection";

    private HeaderLine() {
    }

    /** Whether a header line starting with {@code first} may be one the parser reads (c... or t...). */
    static boolean mayMatter(byte first) {
        int lower = first | 0x20;
        return lower == 'c' || lower == 't';
    }

    /** Applies the header line in {@code [start, end)} to {@code parser}, when it is one the parser needs. */
    static void apply(ResponseParser parser, byte[] in, int start, int end) throws MalformedResponseException {
        int first = in[start] | 0x20;
        if (first == 'c') {
            int v = valueStart(in, start, end, CONTENT_LENGTH);
            if (v >= 0) {
                parser.contentLength(contentLength(in, v, trimEnd(in, v, end)));
                return;
            }
            v = valueStart(in, start, end, CONNECTION);
            if (v >= 0) {
                int e = trimEnd(in, v, end);
                parser.connection(hasToken(in, v, e, "close"), hasToken(in, v, e, "keep-alive"));
            }
        } else if (first == 't') {
            int v = valueStart(in, start, end, TRANSFER_ENCODING);
            if (v >= 0 && hasToken(in, v, trimEnd(in, v, end), "chunked")) {
                parser.chunked();
            }
        }
    }

    /** Where the value starts when the line is header {@code name} (lower case), else -1. */
    private static int valueStart(byte[] in, int start, int end, String name) {
        int colon = start + name.length();
        if (colon >= end || in[colon] != ':' || !startsWithIgnoreCase(in, start, name)) {
            return -1;
        }
        int i = colon + 1;
        while (i < end && isSpace(in[i])) {
            i++;
        }
        return i;
    }

    private static int trimEnd(byte[] in, int start, int end) {
        while (end > start && isSpace(in[end - 1])) {
            end--;
        }
        return end;
    }

    private static long contentLength(byte[] in, int start, int end) throws MalformedResponseException {
        if (start == end) {
            throw new MalformedResponseException("empty Content-Length");
        }
        long n = 0;
        for (int i = start; i < end; i++) {
            int d = in[i] - '0';
            if (d < 0 || d > 9 || n > (Long.MAX_VALUE - d) / 10) {
                throw new MalformedResponseException("bad Content-Length");
            }
            n = n * 10 + d;
        }
        return n;
    }

    /** The size on a chunk-size line (hex digits, then optional extensions after ';'). */
    static long chunkSize(byte[] in, int start, int end) throws MalformedResponseException {
        long n = 0;
        int i = start;
        for (; i < end; i++) {
            int d = Character.digit(in[i], 16);
            if (d < 0) {
                break;
            }
            if (n > (Long.MAX_VALUE >> 4)) {
                throw new MalformedResponseException("chunk size too large");
            }
            n = n << 4 | d;
        }
        if (i == start || i < end && in[i] != ';' && !isSpace(in[i])) {
            throw new MalformedResponseException("bad chunk size line");
        }
        return n;
    }

    /** Whether the comma-separated list in {@code [start, end)} holds {@code token} (lower case). */
    private static boolean hasToken(byte[] in, int start, int end, String token) {
        int i = start;
        while (i < end) {
            while (i < end && (isSpace(in[i]) || in[i] == ',')) {
                i++;
            }
            int tokenEnd = i;
            while (tokenEnd < end && in[tokenEnd] != ',') {
                tokenEnd++;
            }
            if (trimEnd(in, i, tokenEnd) - i == token.length() && startsWithIgnoreCase(in, i, token)) {
                return true;
            }
            i = tokenEnd;
        }
        return false;
    }

    static boolean startsWith(byte[] in, int start, String prefix) {
        for (int i = 0; i < prefix.length(); i++) {
            if (in[start + i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** {@code lower} is lower case; ORing 0x20 folds ASCII letters (and leaves '-', ':' and digits as they are). */
    private static boolean startsWithIgnoreCase(byte[] in, int start, String lower) {
        for (int i = 0; i < lower.length(); i++) {
            if ((in[start + i] | 0x20) != lower.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t';
    }
}
