package io.portico.config;

import java.nio.file.Path;

/** The in-process demo app server that the bundled config starts so every job can be tried at once. */
public record DemoAppConfig(boolean enabled, ListenAddress listen, int workers, boolean keepalive, Path root) {}
