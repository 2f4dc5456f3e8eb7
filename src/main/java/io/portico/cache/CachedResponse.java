package io.portico.cache;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.Map;

/**
 * A stored upstream response: its status, its head as received (never modified after it is stored; answers copy
 * it) and its whole body as a heap array. Fresh until {@code freshUntilNanos}, stale after.
 *
 * @param initialAgeSeconds the upstream's own Age when it was stored (honor-cache-control), else 0
 * @param variant the values of the request headers its Vary names, as {@link CacheZone#variant} writes them
 */
record CachedResponse(int status, HttpHeaders headers, byte[] body, long storedNanos, long freshUntilNanos,
        long initialAgeSeconds, String variant) implements Stored {

    /** Whether this response may answer a request with {@code request} headers (its Vary matches). */
    boolean matches(HttpHeaders request) {
        java.util.List<String> names = CachePolicy.varyNames(headers);
        return names == null || names.isEmpty() || CacheZone.variant(names, request).equals(variant);
    }

    boolean fresh(long nowNanos) {
        return nowNanos - freshUntilNanos < 0;
    }

    /** The Age header's value: the upstream's Age when stored plus the seconds it has been stored. */
    long ageSeconds(long nowNanos) {
        return initialAgeSeconds + Math.max(0, (nowNanos - storedNanos) / 1_000_000_000L);
    }

    @Override
    public int weight() {
        int w = body.length;
        for (Map.Entry<String, String> e : headers) {
            w += e.getKey().length() + e.getValue().length() + 32;
        }
        return w;
    }
}
