package io.portico.ratelimit;

import io.netty.handler.codec.http.HttpHeaders;

/**
 * What a location's rate-limit zones decided about one request: serve it after {@code delayNanos} (0: at once),
 * or reject it for {@code rejectedBy}, which would admit a request after {@code retryNanos}. {@code note} is the
 * access-log note, null when no zone looked at the request. {@code passHeaders} are the RateLimit fields of zones
 * with {@code headers = always}, for the response of a request that passes; null when none.
 */
record RateVerdict(long delayNanos, RateZone rejectedBy, long retryNanos, String note, HttpHeaders passHeaders) {

    static final RateVerdict UNLIMITED = new RateVerdict(0, null, 0, null, null);

    boolean rejected() {
        return rejectedBy != null;
    }
}
