package io.portico.staticfile;

/** Parses a single-range {@code Range: bytes=...} header against a representation size (RFC 9110 §14.1.2). */
final class ByteRange {
    private ByteRange() {}

    /** What the Range header asks for. */
    sealed interface Result {
        /** No usable range (absent, malformed, several ranges, or other unit): answer 200 with everything. */
        record Ignored() implements Result {}

        record Satisfiable(long start, long end) implements Result {
            long length() {
                return end - start + 1;
            }
        }

        record Unsatisfiable() implements Result {}
    }

    static final Result IGNORED = new Result.Ignored();
    static final Result UNSATISFIABLE = new Result.Unsatisfiable();

    static Result parse(String header, long size) {
        if (header == null || size <= 0) {
            return IGNORED;
        }
        String value = header.trim();
        if (value.length() < 6 || !value.regionMatches(true, 0, "bytes=", 0, 6)) {
            return IGNORED;
        }
        String spec = value.substring(6).trim();
        if (spec.indexOf(',') >= 0) {
            return IGNORED; // several ranges: served whole, like a multipart-less server
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return IGNORED;
        }
        String first = spec.substring(0, dash).trim();
        String last = spec.substring(dash + 1).trim();
        if (first.isEmpty()) {
            long suffix = number(last);
            if (suffix < 0) {
                return IGNORED;
            }
            return suffix == 0 ? UNSATISFIABLE : new Result.Satisfiable(Math.max(0, size - suffix), size - 1);
        }
        long start = number(first);
        long end = last.isEmpty() ? Long.MAX_VALUE : number(last);
        if (start < 0 || end < 0 || end < start) {
            return IGNORED;
        }
        if (start >= size) {
            return UNSATISFIABLE;
        }
        return new Result.Satisfiable(start, Math.min(end, size - 1));
    }

    /** A non-negative decimal, saturating at Long.MAX_VALUE; -1 when not all digits. */
    private static long number(String s) {
        if (s.isEmpty()) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = n > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : n * 10 + (c - '0');
        }
        return n;
    }
}
