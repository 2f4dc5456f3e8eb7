package io.portico.config;

import java.util.Arrays;

/**
 * The one spelling of a request path that decides everything: routing, access rules, rate limits, static files
 * and the request forwarded upstream all use it, so a request is never matched on one spelling and served on
 * another ({@code //admin}, {@code /./admin}, {@code /x/../admin} and {@code /%61dmin} are all {@code /admin}).
 *
 * <p>The rules, in order (RFC 3986 sections 6.2.2 and 5.2.4, and nginx's before-matching normalization):
 * <ol>
 *   <li>percent-encoded unreserved characters ({@code A-Z a-z 0-9 - . _ ~}) are decoded; every other
 *       percent-encoding stays encoded, its hex digits upper-cased ({@code %2f} is {@code %2F}, never a
 *       separator); a {@code %} not followed by two hex digits, and {@code %00}, refuse the path;</li>
 *   <li>characters a URI may not hold but that clients send anyway ({@code " < > ^ ` { | }}) are
 *       percent-encoded; a space, a control byte, a byte above 0x7e, {@code #} and {@code \} refuse it;</li>
 *   <li>dot segments are removed; a {@code ..} that would climb above {@code /} refuses the path, and so
 *       does an encoded separator ({@code %2F}, {@code %5C}) beside a dot segment ({@code ..%2F}), which an
 *       app that decodes it would read as a climb;</li>
 *   <li>empty segments are merged ({@code //x} is {@code /x}) unless the caller keeps them, as a proxy
 *       location with {@code merge-slashes = false} does for the path it forwards (its location was still
 *       chosen on the merged path).</li>
 * </ol>
 * The query is not part of the path and is kept as sent. A path already in this form (the usual request) is
 * returned as the same string, after one scan and no allocation.
 */
public final class RequestPath {
    /** Characters that may stand in a normalized path as themselves: unreserved, sub-delims, ':', '@', '/'. */
    private static final boolean[] PLAIN = new boolean[128];
    /** Characters clients send unencoded that a URI may not hold: encoded, not refused. */
    private static final String ENCODED = "\"<>^`{|}";

    static {
        for (char c = 'a'; c <= 'z'; c++) {
            PLAIN[c] = true;
            PLAIN[Character.toUpperCase(c)] = true;
        }
        for (char c = '0'; c <= '9'; c++) {
            PLAIN[c] = true;
        }
        for (char c : "-._~!$&'()*+,;=:@/".toCharArray()) {
            PLAIN[c] = true;
        }
    }

    private RequestPath() {}

    /** The normalized path of {@code raw} (a path as received, without the query), or null when it is refused. */
    public static String normalize(String raw) {
        return normalize(raw, true);
    }

    /** As {@link #normalize(String)}; {@code mergeSlashes = false} keeps empty segments. */
    public static String normalize(String raw, boolean mergeSlashes) {
        if (raw.isEmpty() || raw.charAt(0) != '/') {
            return null;
        }
        return isNormal(raw) ? raw : rebuild(raw, mergeSlashes);
    }

    /** No percent sign, no character to encode or refuse, no empty or dot segment: nothing to change. */
    private static boolean isNormal(String raw) {
        int n = raw.length();
        for (int i = 0; i < n; i++) {
            char c = raw.charAt(i);
            if (c >= 128 || !PLAIN[c]) {
                return false;
            }
            if (c == '/' && i + 1 < n) {
                char next = raw.charAt(i + 1);
                if (next == '/' || (next == '.' && isDotSegment(raw, i + 1, n))) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether the segment starting at {@code from} (just after a '/') is "." or "..". */
    private static boolean isDotSegment(String raw, int from, int n) {
        int end = raw.indexOf('/', from);
        int len = (end < 0 ? n : end) - from;
        return len == 1 || (len == 2 && raw.charAt(from + 1) == '.');
    }

    private static String rebuild(String raw, boolean mergeSlashes) {
        int n = raw.length();
        StringBuilder out = new StringBuilder(n + 8);
        // out holds "/seg1/seg2..." (each segment with its leading '/'); starts[k] is where segment k begins in out.
        int[] starts = new int[16];
        int depth = 0;
        boolean trailing = false;
        StringBuilder segment = new StringBuilder();
        int i = 1;
        while (i <= n) {
            int end = raw.indexOf('/', i);
            if (end < 0) {
                end = n;
            }
            boolean last = end == n;
            segment.setLength(0);
            int encodedSeparators = canonical(raw, i, end, segment);
            if (encodedSeparators < 0) {
                return null;
            }
            String seg = segment.toString();
            trailing = false;
            if (seg.equals(".")) {
                trailing = last;
            } else if (seg.equals("..")) {
                if (depth == 0) {
                    return null;
                }
                out.setLength(starts[--depth]);
                trailing = last;
            } else if (seg.isEmpty() && (mergeSlashes || last)) {
                trailing = last;
            } else {
                if (encodedSeparators > 0 && climbsThroughSeparator(seg)) {
                    return null;
                }
                if (depth == starts.length) {
                    starts = Arrays.copyOf(starts, depth * 2);
                }
                starts[depth++] = out.length();
                out.append('/').append(seg);
            }
            i = end + 1;
        }
        if (trailing || out.length() == 0) {
            out.append('/');
        }
        return out.toString();
    }

    /**
     * Appends the canonical form of {@code raw[from, to)} to {@code out}; returns how many encoded separators
     * it holds, or -1 when the segment refuses the path.
     */
    private static int canonical(String raw, int from, int to, StringBuilder out) {
        int separators = 0;
        for (int i = from; i < to; i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                int hi = i + 1 < to ? hex(raw.charAt(i + 1)) : -1;
                int lo = i + 2 < to ? hex(raw.charAt(i + 2)) : -1;
                if (hi < 0 || lo < 0) {
                    return -1;
                }
                int b = hi << 4 | lo;
                if (b == 0) {
                    return -1;
                }
                if (isUnreserved((char) b)) {
                    out.append((char) b);
                } else {
                    if (b == '/' || b == '\\') {
                        separators++;
                    }
                    appendEncoded(out, b);
                }
                i += 2;
            } else if (c < 128 && PLAIN[c]) {
                out.append(c);
            } else if (ENCODED.indexOf(c) >= 0) {
                appendEncoded(out, c);
            } else {
                return -1; // space, control bytes, DEL, non-ASCII, '#', '\'
            }
        }
        return separators;
    }

    /** An ASCII hex digit's value, or -1 (Character.digit would also take other scripts' digits). */
    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        char lower = (char) (c | 0x20);
        return lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static void appendEncoded(StringBuilder out, int b) {
        out.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)))
                .append(Character.toUpperCase(Character.forDigit(b & 0xf, 16)));
    }

    /** Whether a segment holding %2F or %5C has a "." or ".." between its encoded separators. */
    private static boolean climbsThroughSeparator(String seg) {
        for (String part : seg.split("%2F|%5C", -1)) {
            if (part.equals(".") || part.equals("..")) {
                return true;
            }
        }
        return false;
    }
}
