package io.portico.ratelimit;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.LimitConnConfig;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One {@code limit-conn} zone: requests in progress per key. Only keys with a request in progress are held, so
 * memory follows the number of open exchanges, not the number of clients ever seen. A zone with a Redis store
 * counts in Redis ({@link RedisConnStore}), across instances; its local count is then on-store-failure = local's.
 */
final class ConnZone {
    final LimitConnConfig config;
    final RequestKey key;
    final ZoneCounters counters;
    final HttpResponseStatus status;
    final String notePassed;
    final String noteRejected;
    /** The zone's Redis counts; null for a zone counted in this process. */
    final RedisConnStore shared;
    private final ConcurrentHashMap<ClientKey, Integer> inProgress = new ConcurrentHashMap<>();

    ConnZone(LimitConnConfig config) {
        this(config, null);
    }

    ConnZone(LimitConnConfig config, RedisConnStore shared) {
        this.config = config;
        this.shared = shared;
        this.key = RequestKey.parse("limit-conn." + config.name(), config.key(), config.ipv6Prefix());
        this.counters = shared == null ? new ZoneCounters(inProgress::size, () -> 0, () -> 0)
                : new ZoneCounters(() -> shared.held() + inProgress.size(), () -> 0, shared::failures);
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

    /**
     * A shared zone's slot for {@code key}: the lease to give back when the exchange ends, or null when the key
     * has max (across instances). When Redis cannot say, on-store-failure decides: this instance's own count,
     * admit (holding nothing), or refuse. Completes on Lettuce's thread, or on {@code timer} (the asking event
     * loop's) at store-timeout.
     */
    CompletableFuture<LocationLimits.Lease> acquireShared(ClientKey key, ScheduledExecutorService timer) {
        return shared.take(key, timer).thenApply(answer -> {
            if (!answer.storeFailed()) {
                return answer.admitted() ? new LocationLimits.Lease(this, key, answer.slot(), false) : null;
            }
            return decideWithout(key);
        });
    }

    /** The lease on-store-failure gives {@code key}, or null. */
    private LocationLimits.Lease decideWithout(ClientKey key) {
        return switch (config.store().onFailure()) {
            case LOCAL -> tryAcquire(key) ? new LocationLimits.Lease(this, key, null, true) : null;
            case ALLOW -> new LocationLimits.Lease(this, key, null, false);
            case REJECT -> null;
        };
    }

    /**
     * At start: on-store-failure's lease for {@link StoreWarmUp#KEY}, released at once as an exchange's is, so
     * its path (and the local count's table) exists before the first failure ({@link StoreWarmUp#onStoreFailure}).
     * Leaves no slot held; the zone's failures are not counted.
     */
    void warmOnStoreFailure() {
        LocationLimits.Lease lease = decideWithout(StoreWarmUp.KEY);
        if (lease != null) {
            lease.release();
        }
    }
}
