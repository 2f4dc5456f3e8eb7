package io.portico.server;

import io.netty.util.AsciiString;
import io.portico.exchange.PerSecond;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/** The {@code Date} header value of the current second. */
final class HttpDates {
    /**
     * RFC 9110 5.6.7's IMF-fixdate, {@code Tue, 01 Dec 2026 08:05:09 GMT}: a two-digit day, always.
     * ({@code RFC_1123_DATE_TIME} writes the day without its leading zero, {@code Tue, 1 Dec 2026}.)
     */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final PerSecond<AsciiString> DATE = new PerSecond<>(second -> new AsciiString(format(second)));

    private HttpDates() {}

    static AsciiString now() {
        return DATE.at(System.currentTimeMillis() / 1000);
    }

    /** The IMF-fixdate of an epoch second. */
    static String format(long epochSecond) {
        return IMF_FIXDATE.format(Instant.ofEpochSecond(epochSecond));
    }
}
