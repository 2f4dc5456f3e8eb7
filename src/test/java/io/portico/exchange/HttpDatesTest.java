package io.portico.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The Date header's format: RFC 9110 5.6.7's IMF-fixdate, whose day always has two digits. */
class HttpDatesTest {
    @Test
    void aDayBelowTenHasItsLeadingZero() {
        assertThat(HttpDates.format(Instant.parse("2026-12-01T08:05:09Z").getEpochSecond()))
                .isEqualTo("Tue, 01 Dec 2026 08:05:09 GMT");
    }

    @Test
    void aTwoDigitDayAndMidnight() {
        assertThat(HttpDates.format(Instant.parse("1994-11-06T00:00:00Z").getEpochSecond()))
                .isEqualTo("Sun, 06 Nov 1994 00:00:00 GMT");
        assertThat(HttpDates.format(Instant.parse("2027-03-28T23:59:59Z").getEpochSecond()))
                .isEqualTo("Sun, 28 Mar 2027 23:59:59 GMT");
    }
}
