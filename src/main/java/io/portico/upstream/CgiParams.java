package io.portico.upstream;

import java.util.Arrays;

/**
 * The CGI variables of one request that its head does not carry (the client's address and port, the server's,
 * the scheme, a location's {@code params}), written on an upstream channel just before the head; the protocol's
 * encoder adds those it derives from the head ({@code REQUEST_METHOD}, {@code PATH_INFO}, {@code CONTENT_LENGTH},
 * {@code HTTP_*}, ...) unless this set already has them. Immutable, so a retry writes the same instance again. Not
 * reference-counted.
 *
 * <p>Values are byte strings: a char up to U+00FF is one byte (as Netty's header values hold the bytes received),
 * a value with a char beyond it (from the configuration) is sent as UTF-8.
 *
 * <p>Two arrays and a count, not a list and a set: a request in front of uWSGI or PHP-FPM builds one, and a set
 * of about a dozen names is searched faster by scanning than by hashing. The encoder asks {@link #has} for each
 * variable it derives; the set remembers whether any of its names is one the encoder can derive (only a location's
 * {@code params} ever are), so that the usual answer, no, costs no search.
 */
public final class CgiParams {
    private final String[] names;
    private final String[] values;
    private final int size;
    private final boolean namesDerivable;

    private CgiParams(String[] names, String[] values, int size, boolean namesDerivable) {
        this.names = names;
        this.values = values;
        this.size = size;
        this.namesDerivable = namesDerivable;
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
        return namesDerivable && indexOf(names, size, name) >= 0;
    }

    int size() {
        return size;
    }

    String name(int i) {
        return names[i];
    }

    String value(int i) {
        return values[i];
    }

    private static int indexOf(String[] names, int size, String name) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** Whether {@link CgiEnvironment} derives a variable of this name from the head. */
    private static boolean derivable(String name) {
        return name.startsWith("HTTP_") || CgiEnvironment.DERIVED.contains(name);
    }

    /**
     * Variables in the order added; a later value of a name replaces the earlier one, in its place. Used once:
     * {@link #build} hands its arrays over instead of copying them, so nothing may be added after.
     */
    public static final class Builder {
        private String[] names = new String[16];
        private String[] values = new String[16];
        private int size;
        private boolean namesDerivable;

        private Builder() {}

        public Builder set(String name, String value) {
            int i = indexOf(names, size, name);
            if (i >= 0) {
                values[i] = value;
                return this;
            }
            if (size == names.length) {
                names = Arrays.copyOf(names, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            names[size] = name;
            values[size++] = value;
            namesDerivable |= derivable(name);
            return this;
        }

        public CgiParams build() {
            CgiParams built = new CgiParams(names, values, size, namesDerivable);
            names = null;
            values = null;
            return built;
        }
    }
}
