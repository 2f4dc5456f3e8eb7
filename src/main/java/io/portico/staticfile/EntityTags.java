package io.portico.staticfile;

/** Matching of If-Match / If-None-Match / If-Range entity-tag lists (RFC 9110 §8.8.3). */
final class EntityTags {
    private EntityTags() {}

    /** The result of matching a header against the current tag: a malformed header is {@code MALFORMED}. */
    enum Match {
        YES,
        NO,
        MALFORMED
    }

    /** Strong comparison (If-Match, If-Range): weak tags never match. */
    static Match strong(String header, String etag) {
        return match(header, etag, false);
    }

    /** Weak comparison (If-None-Match): only the opaque parts are compared. */
    static Match weak(String header, String etag) {
        return match(header, etag, true);
    }

    private static Match match(String header, String etag, boolean weakComparison) {
        String value = header.trim();
        if (value.equals("*")) {
            return Match.YES;
        }
        boolean found = false;
        int i = 0;
        int n = value.length();
        while (i < n) {
            char c = value.charAt(i);
            if (c == ' ' || c == '\t' || c == ',') {
                i++;
                continue;
            }
            boolean weak = false;
            if (c == 'W' && value.startsWith("W/", i)) {
                weak = true;
                i += 2;
            }
            if (i >= n || value.charAt(i) != '"') {
                return Match.MALFORMED;
            }
            int close = value.indexOf('"', i + 1);
            if (close < 0) {
                return Match.MALFORMED;
            }
            if ((weakComparison || !weak) && value.regionMatches(i, etag, 0, etag.length())
                    && close + 1 - i == etag.length()) {
                found = true;
            }
            i = close + 1;
            if (i < n && value.charAt(i) != ',' && value.charAt(i) != ' ' && value.charAt(i) != '\t') {
                return Match.MALFORMED;
            }
        }
        return found ? Match.YES : Match.NO;
    }

    /** Whether an If-Range value is an entity tag (rather than a date). */
    static boolean looksLikeTag(String value) {
        String v = value.trim();
        return v.startsWith("\"") || v.startsWith("W/");
    }
}
