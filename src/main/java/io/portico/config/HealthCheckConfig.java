package io.portico.config;

import java.time.Duration;

/**
 * Active health checks: GET {@code path} every {@code interval}; {@code rise}/{@code fall} consecutive results flip
 * state.
 */
public record HealthCheckConfig(
        String path, Duration interval, Duration timeout, int rise, int fall, int expectMin, int expectMax) {

    public boolean expects(int status) {
        return status >= expectMin && status <= expectMax;
    }
}
