package io.portico.ratelimit;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;
import io.portico.config.RateLimitZoneConfig;
import io.portico.exchange.ResponseHeaders;
import java.util.concurrent.TimeUnit;

/** One {@code rate-limits} zone: its arithmetic, keys, counters, and what it answers when it rejects. */
final class RateZone {
    private static final AsciiString RATE_LIMIT_POLICY = AsciiString.cached("RateLimit-Policy");
    private static final AsciiString RATE_LIMIT = AsciiString.cached("RateLimit");

    /** This zone's place among its server's zones: where a connection keeps its {@link SlotMemo} for it. */
    final int index;
    final RateLimitZoneConfig config;
    final ZoneShape shape;
    /** Where the zone's state lives: exactly one of these is set (see {@link SharedZoneStore}). */
    final ZoneStore store;
    final SharedZoneStore shared;
    final RequestKey key;
    final ZoneCounters counters;
    final HttpResponseStatus status;
    final String notePassed;
    final String noteDelayed;
    final String noteRejected;
    final String noteDryRun;
    final String noteStoreFailed;
    /** The verdict of a request this zone alone passes at once: shared, since it carries nothing per request. */
    final RateVerdict passedAtOnce;
    private final AsciiString policy;
    private volatile Rejection lastRejection;

    RateZone(int index, RateLimitZoneConfig config, ZoneStore store) {
        this(index, config, store, null);
    }

    RateZone(int index, RateLimitZoneConfig config, SharedZoneStore shared) {
        this(index, config, null, shared);
    }

    private RateZone(int index, RateLimitZoneConfig config, ZoneStore store, SharedZoneStore shared) {
        this.index = index;
        this.config = config;
        this.shape = ZoneShape.of(config);
        this.store = store;
        this.shared = shared;
        this.key = RequestKey.parse("rate-limits." + config.name(), config.key(), config.ipv6Prefix());
        // A shared zone's clients are in Redis, which expires them: this instance counts those it asked about, and
        // forgets none early (a client whose handle it drops keeps its bucket in Redis).
        this.counters = store != null ? new ZoneCounters(store::size, store::evictions, () -> 0)
                : new ZoneCounters(shared::clients, () -> 0, shared::failures);
        this.status = HttpResponseStatus.valueOf(config.status());
        this.notePassed = "limit=" + config.name() + ":passed";
        this.noteDelayed = "limit=" + config.name() + ":delayed";
        this.noteRejected = "limit=" + config.name() + ":rejected";
        this.noteDryRun = "limit=" + config.name() + ":dry-run";
        this.noteStoreFailed = "limit=" + config.name() + ":store-failed";
        this.passedAtOnce = new RateVerdict(0, null, 0, notePassed, null);
        // draft-ietf-httpapi-ratelimit-headers: quota q per window w seconds, here the configured rate.
        this.policy = new AsciiString(
                '"' + config.name() + "\";q=" + config.requests() + ";w=" + Math.max(1, config.per().toSeconds()));
    }

    /** Whether passing responses carry this zone's RateLimit fields ({@code headers = always}, not in dry run). */
    boolean headersOnPass() {
        return config.headers() == RateLimitZoneConfig.Headers.ALWAYS && !config.dryRun();
    }

    /**
     * Adds this zone's RateLimit-Policy and RateLimit fields for a request it let pass, which left the key's
     * bucket {@code backlogNanos} ahead of now: {@code r} requests would still be admitted now (at once or
     * paced), and the bucket is full again in {@code t} seconds (rounded up).
     */
    void addPassHeaders(HttpHeaders headers, long backlogNanos) {
        long remaining = backlogNanos > shape.toleranceNanos() ? 0
                : (shape.toleranceNanos() - backlogNanos) / shape.intervalNanos() + 1;
        long seconds = (backlogNanos + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1);
        headers.add(RATE_LIMIT_POLICY, policy);
        headers.add(RATE_LIMIT, '"' + config.name() + "\";r=" + remaining + ";t=" + seconds);
    }

    /**
     * Retry-After and, unless the zone says {@code headers = off}, the RateLimit-Policy and RateLimit fields.
     * The same instance while the wait in seconds stays the same: a flood of rejections (nearly all with the same
     * wait) builds them once, not per response. Never modify it: every rejection of the zone shares it.
     */
    HttpHeaders rejectionHeaders(long retryNanos) {
        long seconds = Math.max(1, (retryNanos + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1));
        Rejection last = lastRejection; // shared by the event loops: a race only builds an equal instance twice
        if (last == null || last.seconds != seconds) {
            last = new Rejection(seconds, buildHeaders(seconds));
            lastRejection = last;
        }
        return last.headers;
    }

    /**
     * A DefaultHttpHeaders, not a ReadOnlyHttpHeaders: the error page copies it into each response, and Netty copies
     * DefaultHttpHeaders entry by entry where it takes any other kind through an iterator of Strings (that copy was
     * 40 % of building a rejection).
     */
    private HttpHeaders buildHeaders(long seconds) {
        HttpHeaders headers = ResponseHeaders.HEADERS.newHeaders()
                .add(HttpHeaderNames.RETRY_AFTER, new AsciiString(Long.toString(seconds)));
        if (config.headers() != RateLimitZoneConfig.Headers.OFF) {
            headers.add(RATE_LIMIT_POLICY, policy)
                    .add(RATE_LIMIT, new AsciiString('"' + config.name() + "\";r=0;t=" + seconds));
        }
        return headers;
    }

    private record Rejection(long seconds, HttpHeaders headers) {}
}
