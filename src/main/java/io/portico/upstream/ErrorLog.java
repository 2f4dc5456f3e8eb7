package io.portico.upstream;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The error log lines about one upstream server (or pool): at most one a second, so that a server refusing ten
 * thousand requests a second costs ten thousand counter increments and one line. A line that follows dropped ones
 * says how many were dropped since the line before it. A change of state (down, back) held back by the rate is not
 * lost: the latest one is kept and written by {@link #flush} once the rate allows, so the log never ends on a stale
 * state. Shared by every event loop: a CAS per line, no lock. Logback writes the line on the calling thread, which
 * the rate bounds to one write a second per subject.
 */
public final class ErrorLog {
    private static final Logger log = LoggerFactory.getLogger("io.portico.upstream");
    private static final long INTERVAL = TimeUnit.SECONDS.toNanos(1);

    private record Line(boolean warn, String what) {}

    private final String subject;
    private final LongSupplier nanoClock;
    private final AtomicLong nextAt;
    private final AtomicInteger dropped = new AtomicInteger();
    private final AtomicReference<Line> pending = new AtomicReference<>();

    /** @param subject what every line is about, e.g. {@code upstream app server 10.0.0.1:80} */
    ErrorLog(String subject, LongSupplier nanoClock) {
        this.subject = subject;
        this.nanoClock = nanoClock;
        this.nextAt = new AtomicLong(nanoClock.getAsLong());
    }

    /** A failure, at WARN, unless a line about this subject was written less than a second ago. */
    public void warn(String what) {
        if (acquire()) {
            write(true, what, dropped.getAndSet(0));
        } else {
            dropped.incrementAndGet();
        }
    }

    /** A change of state, at WARN ({@code bad}) or INFO; one held back by the rate is written later by flush. */
    void change(boolean bad, String what) {
        if (acquire()) {
            pending.set(null); // an older held-back change is out of date
            write(bad, what, dropped.getAndSet(0));
        } else {
            dropped.incrementAndGet();
            pending.set(new Line(bad, what));
        }
    }

    /** Writes the change held back by the rate, if any, once the rate allows. One volatile read when none. */
    void flush() {
        if (pending.get() != null && acquire()) {
            Line l = pending.getAndSet(null);
            if (l != null) {
                write(l.warn, l.what, Math.max(0, dropped.getAndSet(0) - 1)); // itself was counted when held
            }
        }
    }

    private boolean acquire() {
        long now = nanoClock.getAsLong();
        long next = nextAt.get();
        return now - next >= 0 && nextAt.compareAndSet(next, now + INTERVAL);
    }

    private void write(boolean warn, String what, int droppedBefore) {
        if (droppedBefore == 0) {
            if (warn) {
                log.warn("{}: {}", subject, what);
            } else {
                log.info("{}: {}", subject, what);
            }
        } else if (warn) {
            log.warn("{}: {} ({} more not logged since the last line)", subject, what, droppedBefore);
        } else {
            log.info("{}: {} ({} more not logged since the last line)", subject, what, droppedBefore);
        }
    }
}
