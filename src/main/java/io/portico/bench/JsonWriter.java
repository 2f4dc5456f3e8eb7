package io.portico.bench;

import java.util.Locale;

/** A minimal JSON writer (the JDK has none): objects, arrays, escaped strings, finite numbers, two-space indent. */
final class JsonWriter {

    private final StringBuilder sb = new StringBuilder();
    private boolean needComma;
    private boolean afterName;
    private int depth;

    JsonWriter beginObject() {
        prefix();
        sb.append('{');
        depth++;
        needComma = false;
        return this;
    }

    JsonWriter endObject() {
        return close('}');
    }

    JsonWriter beginArray() {
        prefix();
        sb.append('[');
        depth++;
        needComma = false;
        return this;
    }

    JsonWriter endArray() {
        return close(']');
    }

    private JsonWriter close(char c) {
        depth--;
        if (needComma) {
            newline();
        }
        sb.append(c);
        needComma = true;
        return this;
    }

    JsonWriter name(String name) {
        prefix();
        string(name);
        sb.append(": ");
        afterName = true;
        return this;
    }

    JsonWriter value(String s) {
        prefix();
        if (s == null) {
            sb.append("null");
        } else {
            string(s);
        }
        needComma = true;
        return this;
    }

    JsonWriter value(double d) {
        prefix();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            sb.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            sb.append((long) d);
        } else {
            String s = String.format(Locale.ROOT, "%.4f", d);
            s = s.replaceAll("0+$", "");
            sb.append(s.endsWith(".") ? s + "0" : s);
        }
        needComma = true;
        return this;
    }

    JsonWriter value(long l) {
        prefix();
        sb.append(l);
        needComma = true;
        return this;
    }

    JsonWriter value(boolean b) {
        prefix();
        sb.append(b);
        needComma = true;
        return this;
    }

    private void prefix() {
        if (afterName) {
            afterName = false;
            return;
        }
        if (needComma) {
            sb.append(',');
        }
        if (depth > 0) {
            newline();
        }
    }

    private void newline() {
        sb.append('\n').append("  ".repeat(Math.max(0, depth)));
    }

    private void string(String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    @Override
    public String toString() {
        return sb.toString();
    }
}
