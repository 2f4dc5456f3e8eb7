package io.portico.http1;

import io.netty.buffer.ByteBuf;
import io.netty.util.AsciiString;

/**
 * The field names of HTTP/1 heads that most requests and responses carry, shared by the decoders of both legs
 * (the upstream's response decoder and the server's request decoder): a decoded name with the same bytes as one of
 * them, letter case included, is that shared instance instead of a copy. Letter case is kept (a name goes on as
 * its sender spelled it), so each common spelling is its own entry: the canonical one and the all-lower-case one
 * that HTTP/2-era clients and servers send. Immutable, so any thread may use it.
 */
public final class FieldNames {
    /** Canonical spellings (the lower-case ones are added), and PHP's "Content-type". */
    private static final String[] COMMON = {
        "Accept", "Accept-Encoding", "Accept-Language", "Accept-Ranges", "Access-Control-Allow-Origin", "Age",
        "Authorization", "Cache-Control", "Connection", "Content-Encoding", "Content-Language", "Content-Length",
        "Content-Type", "Content-type", "Cookie", "Date", "ETag", "Expires", "Host", "If-Modified-Since",
        "If-None-Match", "Keep-Alive", "Last-Modified", "Location", "Origin", "Pragma", "Priority", "Referer",
        "Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Server", "Set-Cookie", "Strict-Transport-Security",
        "Transfer-Encoding", "Upgrade", "Upgrade-Insecure-Requests", "User-Agent", "Vary", "Via",
        "X-Content-Type-Options", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Frame-Options",
        "X-Powered-By", "X-Real-IP", "X-Request-ID", "X-Requested-With"};
    /** Candidates by length: a decoded name is compared with a handful at most. */
    private static final AsciiString[][] BY_LENGTH = byLength();

    private FieldNames() {}

    /** The name {@code line[start, start + length)}: a shared instance when it is a common spelling, else a copy. */
    public static AsciiString of(byte[] line, int start, int length) {
        if (length < BY_LENGTH.length) {
            for (AsciiString candidate : BY_LENGTH[length]) {
                if (same(candidate, line, start, length)) {
                    return candidate;
                }
            }
        }
        return new AsciiString(line, start, length, true);
    }

    /**
     * The name {@code buf[index, index + length)}, read where it lies (a FastCGI head in the received buffer, which
     * is direct memory on the native transports): a shared instance when it is a common spelling, else a copy.
     */
    public static AsciiString of(ByteBuf buf, int index, int length) {
        if (length < BY_LENGTH.length) {
            for (AsciiString candidate : BY_LENGTH[length]) {
                if (same(candidate, buf, index, length)) {
                    return candidate;
                }
            }
        }
        byte[] copy = new byte[length];
        buf.getBytes(index, copy);
        return new AsciiString(copy, false);
    }

    private static boolean same(AsciiString candidate, ByteBuf buf, int index, int length) {
        byte[] a = candidate.array();
        for (int i = length - 1; i >= 0; i--) {
            if (a[i] != buf.getByte(index + i)) {
                return false;
            }
        }
        return true;
    }

    private static boolean same(AsciiString candidate, byte[] line, int start, int length) {
        byte[] a = candidate.array(); // the shared instances start at offset 0
        for (int i = length - 1; i >= 0; i--) { // names share prefixes (Content-, Accept-): the end differs first
            if (a[i] != line[start + i]) {
                return false;
            }
        }
        return true;
    }

    private static AsciiString[][] byLength() {
        int max = 0;
        for (String s : COMMON) {
            max = Math.max(max, s.length());
        }
        AsciiString[][] table = new AsciiString[max + 1][0];
        for (String s : COMMON) {
            for (String spelling : new String[] {s, s.toLowerCase(java.util.Locale.ROOT)}) {
                AsciiString[] row = table[spelling.length()];
                if (java.util.Arrays.asList(row).contains(new AsciiString(spelling))) {
                    continue; // a name already lower case, or another spelling's lower case
                }
                row = java.util.Arrays.copyOf(row, row.length + 1);
                row[row.length - 1] = new AsciiString(spelling);
                table[spelling.length()] = row;
            }
        }
        return table;
    }
}
