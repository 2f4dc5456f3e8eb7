package io.portico.exchange;

import io.netty.util.AsciiString;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * HTTP dates (RFC 9110 5.6.7): the {@code Date} header value of the current second, and {@code Last-Modified}
 * values. One formatter for both, so the JDK's calendar and locale data load once, at start.
 */
public final class HttpDates {
    /**
     * RFC 9110 5.6.7's IMF-fixdate, {@code Tue, 01 Dec 2026 08:05:09 GMT}: a two-digit day, always.
     * ({@code RFC_1123_DATE_TIME} writes the day without its leading zero, {@code Tue, 1 Dec 2026}.)
     */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final PerSecond<AsciiString> DATE = new PerSecond<>(second -> new AsciiString(format(second)));

    private HttpDates() {}

    public static AsciiString now() {
        return DATE.at(System.currentTimeMillis() / 1000);
    }

    /** The IMF-fixdate of an epoch second. */
    public static String format(long epochSecond) {
        return IMF_FIXDATE.format(Instant.ofEpochSecond(epochSecond));
    }
}
