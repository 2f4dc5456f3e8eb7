package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.testing.LogCapture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** At most one line a second per subject; the next line says how many were left out. */
class ErrorLogTest {
    private final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(5));

    @Test
    void oneLineASecondAndTheNextCountsWhatWasLeftOut() {
        try (LogCapture captured = new LogCapture("io.portico.upstream")) {
            ErrorLog log = new ErrorLog("upstream app server 10.0.0.1:80", now::get);
            for (int i = 0; i < 50; i++) {
                log.warn("connect refused");
                now.addAndGet(TimeUnit.MILLISECONDS.toNanos(10)); // 50 failures in half a second
            }
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
            log.warn("connection reset");
            log.warn("left out too");
            now.addAndGet(TimeUnit.SECONDS.toNanos(1));
            log.warn("read timed out");

            assertThat(captured.lines()).containsExactly(
                    "WARN upstream app server 10.0.0.1:80: connect refused",
                    "WARN upstream app server 10.0.0.1:80: connection reset (49 more not logged since the last line)",
                    "WARN upstream app server 10.0.0.1:80: read timed out (1 more not logged since the last line)");
        }
    }

    @Test
    void eachSubjectHasItsOwnRate() {
        try (LogCapture captured = new LogCapture("io.portico.upstream")) {
            ErrorLog a = new ErrorLog("upstream app server a:1", now::get);
            ErrorLog b = new ErrorLog("upstream app server b:1", now::get);
            a.warn("connect refused");
            b.warn("connect refused");
            a.warn("connect refused");
            assertThat(captured.lines()).containsExactly("WARN upstream app server a:1: connect refused",
                    "WARN upstream app server b:1: connect refused");
        }
    }

    @Test
    void aChangeHeldBackByTheRateIsWrittenLaterAndOnlyTheLatest() {
        try (LogCapture captured = new LogCapture("io.portico.upstream")) {
            ErrorLog log = new ErrorLog("upstream app server a:1", now::get);
            log.change(true, "down");
            log.change(false, "up");
            log.change(true, "down again");
            log.change(false, "up again");
            log.flush(); // still within the second: nothing yet
            assertThat(captured.lines()).containsExactly("WARN upstream app server a:1: down");
            now.addAndGet(TimeUnit.SECONDS.toNanos(1));
            log.flush();
            log.flush();
            assertThat(captured.lines()).containsExactly("WARN upstream app server a:1: down",
                    "INFO upstream app server a:1: up again (2 more not logged since the last line)");
        }
    }
}
