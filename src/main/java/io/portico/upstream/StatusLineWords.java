package io.portico.upstream;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * Shared Strings for the words of an upstream's status line (version, status code, the standard reason phrases),
 * so that decoding a usual status line copies nothing; anything else (null here) is copied as before. Immutable.
 */
final class StatusLineWords {
    private static final String[] VERSIONS = {"HTTP/1.1", "HTTP/1.0"};
    /** "100" to "599", by code. */
    private static final String[] CODES = new String[600];
    /** The standard reason phrases by code (Netty's), for the codes it knows. */
    private static final String[] REASONS = new String[600];

    static {
        for (int code = 100; code < 600; code++) {
            CODES[code] = Integer.toString(code);
            HttpResponseStatus status = HttpResponseStatus.valueOf(code);
            if (status.reasonPhrase().indexOf('(') < 0) { // Netty names unknown codes by class: "Success (299)"
                REASONS[code] = status.reasonPhrase();
            }
        }
    }

    private StatusLineWords() {}

    static String version(byte[] line, int start, int length) {
        for (String v : VERSIONS) {
            if (equal(v, line, start, length)) {
                return v;
            }
        }
        return null;
    }

    static String status(byte[] line, int start, int length) {
        int code = code(line, start, length);
        return code < 0 ? null : CODES[code];
    }

    /** The reason phrase when it is the standard one of the status code just before it on the line. */
    static String reason(byte[] line, int start, int length) {
        int code = start >= 4 ? code(line, start - 4, 3) : -1;
        String r = code < 0 ? null : REASONS[code];
        return r != null && equal(r, line, start, length) ? r : null;
    }

    private static int code(byte[] line, int start, int length) {
        if (length != 3) {
            return -1;
        }
        int code = 0;
        for (int i = start; i < start + 3; i++) {
            int d = line[i] - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            code = code * 10 + d;
        }
        return code >= 100 && code < 600 ? code : -1;
    }

    private static boolean equal(String s, byte[] line, int start, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (s.charAt(i) != (line[start + i] & 0xff)) {
                return false;
            }
        }
        return true;
    }
}
