package io.portico.config;

import java.time.Duration;

/** One server of an upstream pool, with nginx's per-server parameters. */
public record UpstreamServerConfig(
        UpstreamAddress address, int weight, int maxFails, Duration failTimeout, boolean backup) {}
