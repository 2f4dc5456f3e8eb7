package io.portico.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One entry of {@code locations}: how it matches a request path, the one target that answers it, the
 * rate-limit and limit-conn zones applied before the target sees the request, and who may use it at all.
 *
 * @param allow when not empty, only client addresses in these CIDRs are served; the others get 403
 * @param deny client addresses in these CIDRs get 403, even when {@code allow} contains them
 * @param maxBodySize this location's largest request body (nginx's client_max_body_size in a location); empty:
 *     {@code limits.max-body-size}
 * @param compression what is compressed on the way out ({@link CompressionConfig#OFF} when not enabled)
 * @param cache the response cache of a proxy location, empty when it has none
 */
public record LocationConfig(
        Match match,
        TargetConfig target,
        List<String> rateLimits,
        List<String> limitConn,
        List<Cidr> allow,
        List<Cidr> deny,
        String origin,
        OptionalLong maxBodySize,
        CompressionConfig compression,
        Optional<CacheConfig> cache) {

    /** A location without a response cache. */
    public LocationConfig(Match match, TargetConfig target, List<String> rateLimits, List<String> limitConn,
            List<Cidr> allow, List<Cidr> deny, String origin, OptionalLong maxBodySize, CompressionConfig compression) {
        this(match, target, rateLimits, limitConn, allow, deny, origin, maxBodySize, compression, Optional.empty());
    }

    /** A location without compression or a response cache. */
    public LocationConfig(Match match, TargetConfig target, List<String> rateLimits, List<String> limitConn,
            List<Cidr> allow, List<Cidr> deny, String origin, OptionalLong maxBodySize) {
        this(match, target, rateLimits, limitConn, allow, deny, origin, maxBodySize, CompressionConfig.OFF);
    }

    /** A location with the global body limit. */
    public LocationConfig(Match match, TargetConfig target, List<String> rateLimits, List<String> limitConn,
            List<Cidr> allow, List<Cidr> deny, String origin) {
        this(match, target, rateLimits, limitConn, allow, deny, origin, OptionalLong.empty());
    }

    /** A location open to every client. */
    public LocationConfig(
            Match match, TargetConfig target, List<String> rateLimits, List<String> limitConn, String origin) {
        this(match, target, rateLimits, limitConn, List.of(), List.of(), origin);
    }

    /** Whether {@code allow} or {@code deny} restricts who may use this location. */
    public boolean restricted() {
        return !allow.isEmpty() || !deny.isEmpty();
    }

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
