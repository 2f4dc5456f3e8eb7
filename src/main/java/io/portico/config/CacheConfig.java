package io.portico.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A proxy location's {@code cache { }}: which zone holds its responses, for how long by status, under which key,
 * and when a stale copy may stand in (nginx's {@code proxy_cache}, {@code proxy_cache_valid}, {@code
 * proxy_cache_key}, {@code proxy_cache_use_stale}, {@code proxy_cache_lock_timeout}, {@code proxy_cache_bypass}).
 *
 * @param valid how long a response of each status stays fresh when the upstream does not say
 * @param validAny the same for every other status ({@code any}), empty when not given
 * @param methods GET and/or HEAD
 * @param useStale the conditions under which a stale copy is served: error, timeout, updating, http_NNN
 * @param lockTimeout how long concurrent misses on one key wait for the first one's response; 0 does not wait
 * @param bypass when any of these is non-empty and not "0", the cache is neither read nor written
 */
public record CacheConfig(
        String zone,
        Map<Integer, Duration> valid,
        Optional<Duration> validAny,
        TextTemplate key,
        Set<String> methods,
        long maxObjectSize,
        boolean honorCacheControl,
        Set<String> useStale,
        Duration lockTimeout,
        List<TextTemplate> bypass) {

    /** The conditions use-stale accepts, nginx's names. */
    public static final List<String> STALE_CONDITIONS = List.of(
            "error", "timeout", "updating", "http_403", "http_404", "http_429", "http_500", "http_502", "http_503",
            "http_504");

    /** How long a response of {@code status} stays fresh by the location's {@code valid}, or empty: not cached. */
    public Optional<Duration> validFor(int status) {
        Duration d = valid.get(status);
        return d != null ? Optional.of(d) : validAny;
    }
}
