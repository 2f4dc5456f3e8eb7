package io.portico.config;

import java.nio.file.Path;
import java.util.Optional;

/** Where the access log goes: nowhere, standard output, or a file. */
public record AccessLogConfig(Kind kind, Optional<Path> file) {
    public enum Kind {
        OFF,
        STDOUT,
        FILE
    }

    public static AccessLogConfig off() {
        return new AccessLogConfig(Kind.OFF, Optional.empty());
    }

    @Override
    public String toString() {
        return switch (kind) {
            case OFF -> "off";
            case STDOUT -> "stdout";
            case FILE -> file.orElseThrow().toString();
        };
    }
}
