package io.portico.ratelimit;

/**
 * What a location's rate-limit zones decided about one request: serve it after {@code delayNanos} (0: at once),
 * or reject it for {@code rejectedBy}, which would admit a request after {@code retryNanos}. {@code note} is the
 * access-log note, null when no zone looked at the request.
 */
record RateVerdict(long delayNanos, RateZone rejectedBy, long retryNanos, String note) {

    static final RateVerdict UNLIMITED = new RateVerdict(0, null, 0, null);

    boolean rejected() {
        return rejectedBy != null;
    }
}
