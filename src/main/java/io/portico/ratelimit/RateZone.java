package io.portico.ratelimit;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.RateLimitZoneConfig;
import java.util.concurrent.TimeUnit;

/** One {@code rate-limits} zone: its arithmetic, keys, counters, and what it answers when it rejects. */
final class RateZone {
    private static final String RATE_LIMIT_POLICY = "RateLimit-Policy";
    private static final String RATE_LIMIT = "RateLimit";

    final RateLimitZoneConfig config;
    final ZoneShape shape;
    final ZoneStore store;
    final RequestKey key;
    final ZoneCounters counters;
    final HttpResponseStatus status;
    final String notePassed;
    final String noteDelayed;
    final String noteRejected;
    final String noteDryRun;
    private final String policy;

    RateZone(RateLimitZoneConfig config, ZoneStore store) {
        this.config = config;
        this.shape = ZoneShape.of(config);
        this.store = store;
        this.key = RequestKey.parse("rate-limits." + config.name(), config.key(), config.ipv6Prefix());
        this.counters = new ZoneCounters(store::size, store::evictions);
        this.status = HttpResponseStatus.valueOf(config.status());
        this.notePassed = "limit=" + config.name() + ":passed";
        this.noteDelayed = "limit=" + config.name() + ":delayed";
        this.noteRejected = "limit=" + config.name() + ":rejected";
        this.noteDryRun = "limit=" + config.name() + ":dry-run";
        // draft-ietf-httpapi-ratelimit-headers: quota q per window w seconds, here the configured rate.
        this.policy = '"' + config.name() + "\";q=" + config.requests() + ";w=" + Math.max(1, config.per().toSeconds());
    }

    /** Retry-After and, unless the zone says {@code headers = false}, the RateLimit-Policy and RateLimit fields. */
    HttpHeaders rejectionHeaders(long retryNanos) {
        long seconds = Math.max(1, (retryNanos + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1));
        HttpHeaders headers = new DefaultHttpHeaders();
        headers.set(HttpHeaderNames.RETRY_AFTER, seconds);
        if (config.headers()) {
            headers.set(RATE_LIMIT_POLICY, policy);
            headers.set(RATE_LIMIT, '"' + config.name() + "\";r=0;t=" + seconds);
        }
        return headers;
    }
}
