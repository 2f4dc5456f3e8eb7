package io.portico.nginx;

import java.util.List;

/**
 * One nginx directive: its name, its arguments (quotes removed, escapes resolved) and, for a block directive
 * ({@code server { }}, {@code location / { }}), the directives inside. {@code block} is null for a simple one.
 */
record Directive(String name, List<String> args, List<Directive> block, Source source) {

    boolean isBlock() {
        return block != null;
    }

    String arg(int i) {
        return i < args.size() ? args.get(i) : "";
    }

    /** The directive as one short line for comments: {@code location /themes/ { alias /srv/themes/; }}. */
    String summary() {
        StringBuilder s = new StringBuilder(name);
        args.forEach(a -> s.append(' ').append(quoteIfNeeded(a)));
        if (block == null) {
            return s.append(';').toString();
        }
        s.append(" {");
        for (Directive d : block) {
            if (s.length() > 90) {
                s.append(" ...");
                break;
            }
            s.append(' ').append(d.isBlock() ? d.name + " ... { ... }" : d.summary());
        }
        return s.append(" }").toString();
    }

    private static String quoteIfNeeded(String a) {
        return a.isEmpty() || a.chars().anyMatch(c -> c == ' ' || c == ';' || c == '{' || c == '}' || c == '#')
                ? "\"" + a.replace("\"", "\\\"") + "\"" : a;
    }

    /** The comment form: {@code nginx.conf:42: location /themes/ { alias ...; }}, one line, no newlines. */
    String origin() {
        return source + ": " + summary().replace('\n', ' ').replace('\r', ' ');
    }
}
