package io.portico.server;

import io.netty.util.AsciiString;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The {@code Date} header value, formatted at most once a second per event loop: formatting per response costs
 * more than the rest of a small static response.
 */
final class HttpDates {
    private static final ThreadLocal<HttpDates> PER_THREAD = ThreadLocal.withInitial(HttpDates::new);

    private long second = -1;
    private AsciiString value = AsciiString.EMPTY_STRING;

    static AsciiString now() {
        return PER_THREAD.get().current(System.currentTimeMillis() / 1000);
    }

    private AsciiString current(long nowSecond) {
        if (nowSecond != second) {
            second = nowSecond;
            value = new AsciiString(
                    DateTimeFormatter.RFC_1123_DATE_TIME.format(Instant.ofEpochSecond(nowSecond).atOffset(ZoneOffset.UTC)));
        }
        return value;
    }
}
