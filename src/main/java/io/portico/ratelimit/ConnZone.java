package io.portico.ratelimit;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.LimitConnConfig;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@code limit-conn} zone: requests in progress per key. Only keys with a request in progress are held, so
 * memory follows the number of open exchanges, not the number of clients ever seen.
 */
final class ConnZone {
    final LimitConnConfig config;
    final RequestKey key;
    final ZoneCounters counters;
    final HttpResponseStatus status;
    final String notePassed;
    final String noteRejected;
    private final ConcurrentHashMap<ClientKey, Integer> inProgress = new ConcurrentHashMap<>();

    ConnZone(LimitConnConfig config) {
        this.config = config;
        this.key = RequestKey.parse("limit-conn." + config.name(), config.key(), config.ipv6Prefix());
        this.counters = new ZoneCounters(inProgress::size, () -> 0, () -> 0);
        this.status = HttpResponseStatus.valueOf(config.status());
        this.notePassed = "limit-conn=" + config.name() + ":passed";
        this.noteRejected = "limit-conn=" + config.name() + ":rejected";
    }

    /** Counts one more request in progress for {@code key}, unless it already has {@code max}. */
    boolean tryAcquire(ClientKey key) {
        boolean[] admitted = new boolean[1];
        inProgress.compute(key, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= config.max()) {
                return n;
            }
            admitted[0] = true;
            return now + 1;
        });
        return admitted[0];
    }

    void release(ClientKey key) {
        inProgress.computeIfPresent(key, (k, n) -> n <= 1 ? null : n - 1);
    }

    int inProgress(ClientKey key) {
        return inProgress.getOrDefault(key, 0);
    }
}
