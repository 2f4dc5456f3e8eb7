package io.portico.nginx;

import java.util.List;
import java.util.stream.Collectors;

/** Writes HOCON text: every string quoted (JSON escapes), keys quoted unless plain kebab-case, comments kept. */
final class Hocon {
    private final StringBuilder out = new StringBuilder();
    private int indent;

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    static String key(String k) {
        return k.matches("[A-Za-z][A-Za-z0-9_-]*") ? k : quote(k);
    }

    static String list(List<String> quoted) {
        return "[" + String.join(", ", quoted) + "]";
    }

    static String strings(List<String> values) {
        return list(values.stream().map(Hocon::quote).collect(Collectors.toList()));
    }

    Hocon comment(String text) {
        for (String line : text.split("\n")) {
            line(("# " + line).stripTrailing());
        }
        return this;
    }

    /** {@code key = value}, with a trailing comment naming where it came from when {@code origin} is not null. */
    Hocon value(String key, String value, String origin) {
        line(key(key) + " = " + value + (origin == null ? "" : "  # " + origin));
        return this;
    }

    Hocon open(String header) {
        line(header);
        indent++;
        return this;
    }

    Hocon close(String footer) {
        indent--;
        line(footer);
        return this;
    }

    Hocon blank() {
        out.append('\n');
        return this;
    }

    Hocon line(String text) {
        out.append("  ".repeat(indent)).append(text).append('\n');
        return this;
    }

    /** Another writer's text, indented to this one's level. */
    Hocon embed(Hocon other) {
        for (String l : other.toString().split("\n")) {
            if (!l.isEmpty()) {
                line(l);
            }
        }
        return this;
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
