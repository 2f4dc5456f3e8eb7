package io.portico.server;

import io.netty.util.AsciiString;
import io.portico.route.PerSecond;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** The {@code Date} header value of the current second. */
final class HttpDates {
    private static final PerSecond<AsciiString> DATE = new PerSecond<>(second -> new AsciiString(
            DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC))));

    private HttpDates() {}

    static AsciiString now() {
        return DATE.at(System.currentTimeMillis() / 1000);
    }
}
