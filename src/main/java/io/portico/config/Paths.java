package io.portico.config;

import java.nio.file.Path;

/** Resolves relative paths of a config against its prefix directory, like nginx's {@code -p}. */
final class Paths {
    private final Path prefix;

    Paths(Path prefix) {
        this.prefix = prefix;
    }

    Path resolve(String path) {
        return prefix.resolve(path).toAbsolutePath().normalize();
    }
}
