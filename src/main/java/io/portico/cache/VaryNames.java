package io.portico.cache;

import java.util.List;

/**
 * Stored under a key whose last response had {@code Vary}: the request headers (lower-case) that pick its variant,
 * each stored under the key plus their values.
 */
record VaryNames(List<String> names) implements Stored {
    @Override
    public int weight() {
        return names.stream().mapToInt(n -> 2 * n.length() + 16).sum();
    }
}
