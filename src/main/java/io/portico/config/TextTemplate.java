package io.portico.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A configured text with nginx variables ({@code "https://$host$request_uri"}), compiled once at load into
 * literal and variable parts, so that a request only concatenates. Only the variables of {@link Variable} exist;
 * any other {@code $name} is refused at load, and there is no escape for {@code $}, as in nginx.
 *
 * @param text the text as configured (what {@code portico check} prints back)
 */
public record TextTemplate(String text, List<Part> parts) {

    /** The variables a template may name, with nginx's meaning (route.Variables gives each its value). */
    public enum Variable {
        /** {@code http} or {@code https}, from the client connection. */
        SCHEME("scheme"),
        /** The request line's host, or Host without its port, lower-cased; else the address the client reached. */
        HOST("host"),
        /** The request target as received, with its query. */
        REQUEST_URI("request_uri"),
        /** The request's path, without the query. */
        URI("uri"),
        /** The query, without the {@code ?}; empty when there is none. */
        ARGS("args"),
        /** The client address: the peer, or the one trusted proxies name. */
        REMOTE_ADDR("remote_addr");

        public final String name;

        Variable(String name) {
            this.name = name;
        }

        static Optional<Variable> named(String name) {
            return Arrays.stream(values()).filter(v -> v.name.equals(name)).findFirst();
        }
    }

    /** A piece of a template: text as written, or a variable. */
    public sealed interface Part {}

    public record Literal(String text) implements Part {}

    public record Var(Variable variable) implements Part {}

    /**
     * nginx's {@code $http_NAME} (a request header, {@code _} for {@code -}) and {@code $cookie_NAME} (a cookie of
     * the request): empty when the request has none.
     */
    public record Field(Source source, String name) implements Part {
        public enum Source { HEADER, COOKIE }
    }

    /** Text without variables. */
    public static TextTemplate literal(String text) {
        return new TextTemplate(text, text.isEmpty() ? List.of() : List.of(new Literal(text)));
    }

    /** Whether no part is a variable: the text is the value. */
    public boolean isLiteral() {
        // A loop, not a stream: every expansion of every template (headers, CGI params) asks first.
        for (Part p : parts) {
            if (!(p instanceof Literal)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return text;
    }

    /** Compiles {@code text}: {@code $name} or {@code ${name}}; an unknown or empty name is refused. */
    static TextTemplate parse(String text) {
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c != '$') {
                literal.append(c);
                i++;
                continue;
            }
            boolean braced = i + 1 < text.length() && text.charAt(i + 1) == '{';
            int start = braced ? i + 2 : i + 1;
            int end = start;
            while (end < text.length() && nameChar(text.charAt(end))) {
                end++;
            }
            String name = text.substring(start, end);
            if (braced && (end >= text.length() || text.charAt(end) != '}')) {
                throw new IllegalArgumentException("'${" + name + "' has no closing brace");
            }
            if (name.isEmpty()) {
                throw new IllegalArgumentException("a '$' that names no variable (there is no escape for '$', as in"
                        + " nginx; expected: one of " + known() + ")");
            }
            Part part = field(name).orElseGet(() -> new Var(Variable.named(name).orElseThrow(() ->
                    new IllegalArgumentException("'$" + name + "' is not a variable Portico knows (expected: one of "
                            + known() + ", $http_NAME, $cookie_NAME)"))));
            if (!literal.isEmpty()) {
                parts.add(new Literal(literal.toString()));
                literal.setLength(0);
            }
            parts.add(part);
            i = braced ? end + 1 : end;
        }
        if (!literal.isEmpty()) {
            parts.add(new Literal(literal.toString()));
        }
        return new TextTemplate(text, List.copyOf(parts));
    }

    private static Optional<Part> field(String name) {
        if (name.startsWith("http_") && name.length() > 5) {
            return Optional.of(new Field(Field.Source.HEADER, name.substring(5).replace('_', '-')));
        }
        if (name.startsWith("cookie_") && name.length() > 7) {
            return Optional.of(new Field(Field.Source.COOKIE, name.substring(7)));
        }
        return Optional.empty();
    }

    private static boolean nameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }

    static String known() {
        return String.join(", ", Arrays.stream(Variable.values()).map(v -> "$" + v.name).toList());
    }
}
