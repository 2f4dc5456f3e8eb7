package io.portico.upstream;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The CGI variables of one request that its head does not carry (the client's address and port, the server's,
 * the scheme, a location's {@code params}), written on an upstream channel just before the head; the protocol's
 * encoder adds those it derives from the head ({@code REQUEST_METHOD}, {@code PATH_INFO}, {@code CONTENT_LENGTH},
 * {@code HTTP_*}, ...) unless this set already has them. Immutable, so a retry writes the same instance again. Not
 * reference-counted.
 *
 * <p>Values are byte strings: a char up to U+00FF is one byte (as Netty's header values hold the bytes received),
 * a value with a char beyond it (from the configuration) is sent as UTF-8.
 */
public final class CgiParams {
    private final List<String> pairs;
    private final Set<String> names;

    private CgiParams(List<String> pairs, Set<String> names) {
        this.pairs = pairs;
        this.names = names;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A normalized path percent-decoded as PATH_INFO is (one char per byte), for the variables built from it. */
    public static String decodedPath(String path) {
        return CgiEnvironment.percentDecoded(path);
    }

    /** Whether the set has {@code name}: the encoder then does not derive it. */
    boolean has(String name) {
        return names.contains(name);
    }

    int size() {
        return pairs.size() / 2;
    }

    String name(int i) {
        return pairs.get(2 * i);
    }

    String value(int i) {
        return pairs.get(2 * i + 1);
    }

    /**
     * Variables in the order added; a later value of a name replaces the earlier one, in its place. Used once:
     * {@link #build} hands its lists over instead of copying them (one set per request), so nothing may be added
     * after.
     */
    public static final class Builder {
        private List<String> pairs = new ArrayList<>(32);
        private Set<String> names = new HashSet<>();

        private Builder() {}

        public Builder set(String name, String value) {
            if (names.add(name)) {
                pairs.add(name);
                pairs.add(value);
            } else {
                for (int i = 0; i < pairs.size(); i += 2) {
                    if (pairs.get(i).equals(name)) {
                        pairs.set(i + 1, value);
                    }
                }
            }
            return this;
        }

        public CgiParams build() {
            CgiParams built = new CgiParams(Collections.unmodifiableList(pairs), Collections.unmodifiableSet(names));
            pairs = null;
            names = null;
            return built;
        }
    }
}
