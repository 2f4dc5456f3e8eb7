package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.portico.staticfile.Preconditions.Decision;
import java.util.Date;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PreconditionsTest {
    static final long MTIME = 1_700_000_000L;
    static final long SIZE = 1000;
    static final String ETAG = "\"" + Long.toHexString(MTIME) + "-" + Long.toHexString(SIZE) + "\"";
    static final String LAST_MODIFIED = date(MTIME);

    static String date(long seconds) {
        return DateFormatter.format(new Date(seconds * 1000));
    }

    static Decision evaluate(boolean get, String... nameValues) {
        HttpHeaders headers = new DefaultHttpHeaders(false);
        for (int i = 0; i < nameValues.length; i += 2) {
            headers.add(nameValues[i], nameValues[i + 1]);
        }
        return Preconditions.evaluate(headers, get, ETAG, MTIME, SIZE);
    }

    static Decision evaluate(String... nameValues) {
        return evaluate(true, nameValues);
    }

    @Test
    void noConditionsIsFull() {
        assertThat(evaluate()).isEqualTo(Preconditions.FULL);
    }

    @Test
    void ifNoneMatchGivesNotModifiedOnAnyMatchIncludingWeak() {
        assertThat(evaluate("If-None-Match", ETAG)).isEqualTo(Preconditions.NOT_MODIFIED);
        assertThat(evaluate("If-None-Match", "\"x\", W/" + ETAG)).isEqualTo(Preconditions.NOT_MODIFIED);
        assertThat(evaluate("If-None-Match", "*")).isEqualTo(Preconditions.NOT_MODIFIED);
        assertThat(evaluate(false, "If-None-Match", ETAG)).isEqualTo(Preconditions.NOT_MODIFIED);
        assertThat(evaluate("If-None-Match", "\"other\"")).isEqualTo(Preconditions.FULL);
    }

    @Test
    void ifNoneMatchTakesPrecedenceOverIfModifiedSince() {
        assertThat(evaluate("If-None-Match", "\"other\"", "If-Modified-Since", date(MTIME + 10)))
                .isEqualTo(Preconditions.FULL);
    }

    @Test
    void ifModifiedSince() {
        assertThat(evaluate("If-Modified-Since", LAST_MODIFIED)).isEqualTo(Preconditions.NOT_MODIFIED);
        assertThat(evaluate("If-Modified-Since", date(MTIME + 60))).isEqualTo(Preconditions.NOT_MODIFIED);
        assertThat(evaluate("If-Modified-Since", date(MTIME - 1))).isEqualTo(Preconditions.FULL);
    }

    @Test
    void ifMatchAndIfUnmodifiedSinceFailWithPreconditionFailed() {
        assertThat(evaluate("If-Match", "\"other\"")).isEqualTo(Preconditions.PRECONDITION_FAILED);
        assertThat(evaluate("If-Match", "W/" + ETAG)).isEqualTo(Preconditions.PRECONDITION_FAILED);
        assertThat(evaluate("If-Match", ETAG)).isEqualTo(Preconditions.FULL);
        assertThat(evaluate("If-Match", "*")).isEqualTo(Preconditions.FULL);
        assertThat(evaluate("If-Unmodified-Since", date(MTIME - 1))).isEqualTo(Preconditions.PRECONDITION_FAILED);
        assertThat(evaluate("If-Unmodified-Since", LAST_MODIFIED)).isEqualTo(Preconditions.FULL);
        // If-Match present: If-Unmodified-Since is not evaluated
        assertThat(evaluate("If-Match", ETAG, "If-Unmodified-Since", date(MTIME - 1))).isEqualTo(Preconditions.FULL);
        // a failed If-Match wins over a matching If-None-Match
        assertThat(evaluate("If-Match", "\"x\"", "If-None-Match", ETAG)).isEqualTo(Preconditions.PRECONDITION_FAILED);
    }

    @ParameterizedTest
    @CsvSource({"bytes=0-99, 0, 99", "bytes=900-, 900, 999", "bytes=-100, 900, 999", "bytes=990-5000, 990, 999",
        "bytes=-5000, 0, 999", "BYTES=1-1, 1, 1"})
    void singleRangeIsPartial(String range, long start, long end) {
        assertThat(evaluate("Range", range)).isEqualTo(new Decision.Partial(start, end));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=1000-", "bytes=5000-6000", "bytes=-0"})
    void unsatisfiableRange(String range) {
        assertThat(evaluate("Range", range)).isEqualTo(Preconditions.RANGE_NOT_SATISFIABLE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=a-b", "bytes=", "bytes=-", "0-1",
        "bytes=--1", "bytes=1-2-3", "bytes=99999999999999999999999-"})
    void multipleOrMalformedRangesAreFull(String range) {
        Decision decision = evaluate("Range", range);
        // a saturated huge start is simply past the end
        assertThat(decision).isIn(Preconditions.FULL, Preconditions.RANGE_NOT_SATISFIABLE);
        if (!range.startsWith("bytes=9")) {
            assertThat(decision).isEqualTo(Preconditions.FULL);
        }
    }

    @Test
    void rangeIsIgnoredForHeadAndForEmptyFiles() {
        assertThat(evaluate(false, "Range", "bytes=0-1")).isEqualTo(Preconditions.FULL);
        assertThat(Preconditions.evaluate(new DefaultHttpHeaders().add("Range", "bytes=0-1"), true, ETAG, MTIME, 0))
                .isEqualTo(Preconditions.FULL);
    }

    @Test
    void ifRange() {
        assertThat(evaluate("Range", "bytes=0-9", "If-Range", ETAG)).isEqualTo(new Decision.Partial(0, 9));
        assertThat(evaluate("Range", "bytes=0-9", "If-Range", "\"old\"")).isEqualTo(Preconditions.FULL);
        assertThat(evaluate("Range", "bytes=0-9", "If-Range", "W/" + ETAG)).isEqualTo(Preconditions.FULL);
        assertThat(evaluate("Range", "bytes=0-9", "If-Range", LAST_MODIFIED)).isEqualTo(new Decision.Partial(0, 9));
        assertThat(evaluate("Range", "bytes=0-9", "If-Range", date(MTIME + 1))).isEqualTo(Preconditions.FULL);
        assertThat(evaluate("Range", "bytes=0-9", "If-Range", "garbage")).isEqualTo(Preconditions.FULL);
    }

    @ParameterizedTest
    @ValueSource(strings = {"If-None-Match", "If-Match"})
    void malformedTagListsAreIgnored(String header) {
        for (String value : new String[] {"unquoted", "\"open", "\"a\"junk", "W/unquoted", "W/"}) {
            assertThat(evaluate(header, value)).as(header + ": " + value).isEqualTo(Preconditions.FULL);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"If-Modified-Since", "If-Unmodified-Since"})
    void malformedDatesAreIgnored(String header) {
        for (String value : new String[] {"yesterday", "", "Sun, 99 Foo 2020 99:99:99 GMT", "1700000000"}) {
            assertThat(evaluate(header, value)).as(header + ": " + value).isEqualTo(Preconditions.FULL);
        }
    }
}
