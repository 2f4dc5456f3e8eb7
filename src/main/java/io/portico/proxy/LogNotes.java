package io.portico.proxy;

/**
 * The access log's note field as the proxy writes it: space-separated {@code key="value"} pairs (after whatever
 * the rate limiter noted), each value quoted and cleaned, so that a log parser splits the line the same way
 * whatever an upstream sent or an exception said.
 */
final class LogNotes {
    /** Longest value kept: a decoder message quoting an upstream's header can be long. */
    private static final int MAX_VALUE = 120;

    private LogNotes() {}

    /** {@code key="value"}: a quote or backslash becomes {@code '}, control and non-ASCII characters {@code ?}. */
    static String quoted(String key, String value) {
        StringBuilder b = new StringBuilder(key.length() + Math.min(value.length(), MAX_VALUE) + 3)
                .append(key).append("=\"");
        for (int i = 0; i < value.length() && i < MAX_VALUE; i++) {
            char c = value.charAt(i);
            b.append(c == '"' || c == '\\' ? '\'' : c < 0x20 || c > 0x7e ? '?' : c);
        }
        return b.append('"').toString();
    }

    /** A decoder's failure in words: its message, or the exception's simple name when it has none. */
    static String describe(Throwable cause) {
        if (cause == null) {
            return "unknown";
        }
        String m = cause.getMessage();
        return m == null || m.isBlank() ? cause.getClass().getSimpleName() : m.strip();
    }
}
