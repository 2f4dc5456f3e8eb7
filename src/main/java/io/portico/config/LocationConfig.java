package io.portico.config;

import java.util.List;

/**
 * One entry of {@code locations}: how it matches a request path, the one target that answers it, and the
 * rate-limit and limit-conn zones applied before the target sees the request.
 */
public record LocationConfig(
        Match match, TargetConfig target, List<String> rateLimits, List<String> limitConn, String origin) {

    /** How a location matches; precedence is exact, then regexes in list order, then the longest prefix. */
    public record Match(Kind kind, String value) {
        public enum Kind {
            EXACT,
            REGEX,
            PREFIX
        }

        @Override
        public String toString() {
            return switch (kind) {
                case EXACT -> "= " + value;
                case REGEX -> "~ " + value;
                case PREFIX -> value;
            };
        }
    }
}
