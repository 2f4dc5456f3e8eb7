package io.portico.server;

/**
 * The request target's bytes and the Host value, checked on every request head without allocating.
 *
 * <p>Target: HAProxy's strict default (RFC 3986's characters): no control bytes, space or DEL; none of
 * {@code " < > \ ^ ` { | }}; no {@code #} (a fragment is never sent, RFC 9112 3.2); no byte at or above 0x80 (a
 * non-ASCII path must be percent-encoded). Host: {@code reg-name / IPv4address / "[" IPv6 "]"} with an optional
 * numeric port, at most 65535 (RFC 3986 3.2.2-3.2.3), and stricter than the reg-name grammar in two ways: letters,
 * digits and {@code -._~} only (no percent-encoding and no sub-delimiters: a host name never needs them, and a comma
 * is how two Host fields get combined into one), and never empty (RFC 9110 4.2.1: an http URI's host is never
 * empty; nginx refuses an empty Host too).
 */
final class HeadSyntax {
    private static final boolean[] TARGET = new boolean[128];
    private static final boolean[] HOST = new boolean[128];

    static {
        for (int c = 0x21; c < 0x7f; c++) {
            TARGET[c] = "\"<>\\^`{|}#".indexOf(c) < 0;
        }
        for (char c = '0'; c <= '9'; c++) {
            HOST[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            HOST[c] = true;
            HOST[Character.toUpperCase(c)] = true;
        }
        HOST['-'] = true;
        HOST['.'] = true;
        HOST['_'] = true;
        HOST['~'] = true;
    }

    private HeadSyntax() {}

    /** Whether every character of the request target is one a strict server accepts. */
    static boolean validTarget(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c >= 128 || !TARGET[c]) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code host} is {@code host [":" port]} with the host a name, an IPv4 address or [IPv6]. */
    static boolean validHost(CharSequence host) {
        int n = host.length();
        int i = 0;
        if (n > 0 && host.charAt(0) == '[') {
            i = 1;
            boolean colon = false;
            while (i < n && host.charAt(i) != ']') {
                char c = host.charAt(i);
                if (c == ':') {
                    colon = true;
                } else if (c != '.' && Character.digit(c, 16) < 0) {
                    return false;
                }
                i++;
            }
            if (i == n || !colon) {
                return false;
            }
            i++;
        } else {
            while (i < n && host.charAt(i) != ':') {
                char c = host.charAt(i);
                if (c >= 128 || !HOST[c]) {
                    return false;
                }
                i++;
            }
            if (i == 0) {
                return false;
            }
        }
        if (i == n) {
            return true;
        }
        if (host.charAt(i) != ':') {
            return false;
        }
        int port = 0;
        int digits = 0;
        for (i++; i < n; i++, digits++) {
            char c = host.charAt(i);
            if (c < '0' || c > '9' || digits == 5) {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535; // an empty port is allowed: RFC 3986 3.2.3 has it, RFC 9110 4.2.3 reads it as the default
    }
}
