package io.portico.staticfile;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.Optional;

/** A location's {@code expires} (Expires + Cache-Control max-age, like nginx) and literal {@code cacheControl}. */
final class CachingHeaders {
    private final Clock clock;
    private final long expiresMillis;
    private final boolean hasExpires;
    private final String cacheControl;

    CachingHeaders(Optional<Duration> expires, Optional<String> cacheControl, Clock clock) {
        this.clock = clock;
        this.hasExpires = expires.isPresent();
        this.expiresMillis = expires.map(Duration::toMillis).orElse(0L);
        long seconds = Math.max(0, expiresMillis / 1000);
        this.cacheControl = cacheControl.orElse(hasExpires ? (seconds > 0 ? "max-age=" + seconds : "no-cache") : null);
    }

    void addTo(HttpHeaders headers) {
        if (hasExpires) {
            long at = clock.millis() + Math.max(0, expiresMillis);
            headers.set(HttpHeaderNames.EXPIRES, DateFormatter.format(new Date(at)));
        }
        if (cacheControl != null) {
            headers.set(HttpHeaderNames.CACHE_CONTROL, cacheControl);
        }
    }
}
