package io.portico.nginx;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** nginx's value syntax (times, sizes, variables in text) turned into Portico's. */
final class NginxValues {
    private static final Pattern TIME_PART = Pattern.compile("(\\d+)(ms|s|m|h|d|w|M|y)?");
    private static final Pattern SIZE = Pattern.compile("(\\d+)([kKmMgG]?)");
    private static final Pattern VARIABLE = Pattern.compile("\\$(\\{([A-Za-z0-9_]+)}|([A-Za-z0-9_]+))");

    private NginxValues() {}

    /** nginx time ("75", "10s", "1h30m", "500ms"; no unit = seconds) in milliseconds, or empty if it is none. */
    static Optional<Long> millis(String text) {
        if (text.isEmpty()) {
            return Optional.empty();
        }
        Matcher m = TIME_PART.matcher(text);
        long total = 0;
        int at = 0;
        while (at < text.length()) {
            if (!m.find(at) || m.start() != at) {
                return Optional.empty();
            }
            long n = Long.parseLong(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            total += n * switch (unit) {
                case "ms" -> 1L;
                case "s" -> 1000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                case "d" -> 86_400_000L;
                case "w" -> 7 * 86_400_000L;
                case "M" -> 30 * 86_400_000L;
                default -> 365 * 86_400_000L;
            };
            at = m.end();
        }
        return Optional.of(total);
    }

    /** A Portico duration for nginx time text: "75" becomes "75s", "1h30m" "5400s", "500ms" "500ms". */
    static Optional<String> duration(String text) {
        if (text.matches("\\d+(ms|s|m|h|d)")) {
            return Optional.of(text);
        }
        return millis(text).map(ms -> ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms");
    }

    /** A Portico size for nginx size text ("10m", "512k", "1024"), or empty if it is none. */
    static Optional<String> size(String text) {
        Matcher m = SIZE.matcher(text);
        return m.matches() ? Optional.of(m.group(1) + m.group(2).toLowerCase()) : Optional.empty();
    }

    /** Bytes of nginx size text. */
    static long bytes(String text) {
        Matcher m = SIZE.matcher(text);
        if (!m.matches()) {
            return -1;
        }
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2).toLowerCase()) {
            case "k" -> n << 10;
            case "m" -> n << 20;
            case "g" -> n << 30;
            default -> n;
        };
    }

    /**
     * Text with nginx variables as Portico writes it, or why it cannot be: Portico knows $scheme, $host,
     * $request_uri, $uri, $args, $remote_addr ($document_uri and $query_string are their nginx synonyms).
     */
    static Translated text(String text) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(2) != null ? m.group(2) : m.group(3);
            String portico = switch (name) {
                case "scheme", "host", "request_uri", "uri", "args", "remote_addr" -> name;
                case "document_uri" -> "uri";
                case "query_string" -> "args";
                default -> null;
            };
            if (portico == null) {
                return Translated.no("the variable $" + name + " is not one Portico knows (it knows $scheme, $host,"
                        + " $request_uri, $uri, $args, $remote_addr)");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(2) != null ? "${" + portico + "}" : "$" + portico));
        }
        m.appendTail(out);
        if (out.indexOf("$") >= 0 && !VARIABLE.matcher(out).find()) {
            return Translated.no("a literal $ cannot be written in Portico text yet");
        }
        return Translated.of(out.toString());
    }

    /** A translated value, or the reason there is none. */
    record Translated(String value, String whyNot) {
        static Translated of(String value) {
            return new Translated(value, null);
        }

        static Translated no(String why) {
            return new Translated(null, why);
        }

        boolean ok() {
            return whyNot == null;
        }
    }
}
