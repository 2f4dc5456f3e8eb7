package io.portico.staticfile;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.portico.exchange.HttpDates;
import io.portico.exchange.PerSecond;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * A location's {@code expires} (Expires + Cache-Control max-age, like nginx) and literal {@code cacheControl}.
 * Both values are made once (Expires once a second), so a static hit formats no date and encodes no String.
 */
final class CachingHeaders {
    private final Clock clock;
    private final long expiresMillis;
    private final boolean hasExpires;
    private final AsciiString cacheControl;
    /** Keyed by the Expires second itself, so the value is exactly the one a per-request format would give. */
    private final PerSecond<AsciiString> expiresAt =
            new PerSecond<>(second -> new AsciiString(HttpDates.format(second)));

    CachingHeaders(Optional<Duration> expires, Optional<String> cacheControl, Clock clock) {
        this.clock = clock;
        this.hasExpires = expires.isPresent();
        this.expiresMillis = Math.max(0, expires.map(Duration::toMillis).orElse(0L)); // never in the past
        long seconds = expiresMillis / 1000;
        String value = cacheControl.orElse(hasExpires ? (seconds > 0 ? "max-age=" + seconds : "no-cache") : null);
        this.cacheControl = value == null ? null : new AsciiString(value);
    }

    void addTo(HttpHeaders headers) {
        if (hasExpires) {
            long at = clock.millis() + expiresMillis;
            headers.add(HttpHeaderNames.EXPIRES, expiresAt.at(Math.floorDiv(at, 1000)));
        }
        if (cacheControl != null) {
            headers.add(HttpHeaderNames.CACHE_CONTROL, cacheControl);
        }
    }
}
