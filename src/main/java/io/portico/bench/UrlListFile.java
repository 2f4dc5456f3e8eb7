package io.portico.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads siege's URL file syntax: one URL per line, optionally followed by a method and a body
 * ({@code http://h/p POST a=1&b=2}); {@code #} starts a comment; blank lines are skipped.
 */
public final class UrlListFile {

    private static final Pattern METHOD = Pattern.compile("GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS");

    private UrlListFile() {
    }

    /** Parses the file's text; {@code defaultMethod} applies to lines that name none. */
    public static List<RequestTarget> parse(String text, String defaultMethod, byte[] defaultBody) {
        List<RequestTarget> targets = new ArrayList<>();
        int lineNo = 0;
        for (String raw : text.split("\r?\n")) {
            lineNo++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] parts = line.split("\\s+", 3);
            String method = defaultMethod;
            byte[] body = defaultBody;
            if (parts.length >= 2 && METHOD.matcher(parts[1]).matches()) {
                method = parts[1];
                body = parts.length == 3 ? parts[2].getBytes(StandardCharsets.UTF_8) : new byte[0];
            } else if (parts.length >= 2) {
                throw new IllegalArgumentException(
                        "line %d: %s (expected: URL [METHOD [body]])".formatted(lineNo, line));
            }
            targets.add(RequestTarget.of(parts[0], method, body));
        }
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("url file: no URL found (expected: one URL per line)");
        }
        return targets;
    }
}
