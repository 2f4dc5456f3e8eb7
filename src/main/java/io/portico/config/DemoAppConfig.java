package io.portico.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The in-process demo app server that the bundled config starts so every job can be tried at once.
 *
 * <p>{@code unixSocket}, when present, is the path of a unix domain socket to listen on instead of {@code listen}
 * (which may then be {@code null}): gunicorn's {@code --bind unix:PATH}, the setup the seed posts put behind nginx.
 */
public record DemoAppConfig(
        boolean enabled, ListenAddress listen, int workers, boolean keepalive, Path root, Optional<Path> unixSocket) {

    /** A TCP listener, which is all the config file expresses today. */
    public DemoAppConfig(boolean enabled, ListenAddress listen, int workers, boolean keepalive, Path root) {
        this(enabled, listen, workers, keepalive, root, Optional.empty());
    }
}
