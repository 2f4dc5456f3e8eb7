package io.portico.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.WriterReaderPhaser;

/**
 * The figures of one client event loop. Written only by that loop, read once a second by {@link BenchRun}, which
 * takes interval histograms and diffs cumulative counters, so memory stays constant however long the run.
 *
 * <p>The four latency histograms of a response are recorded in one writer critical section of one
 * {@link WriterReaderPhaser} (what a {@code SingleWriterRecorder} does per histogram: one section instead of four
 * halves the atomic operations per response); the reader swaps the active and inactive sets and flips the phase.
 * Counters are release-stores, no lock and no CAS.
 */
final class LoopStats {

    /** Latencies are recorded in microseconds, from 1 us to 1 hour, 3 significant digits. */
    static final long HIGHEST_US = 3_600_000_000L;
    static final int DIGITS = 3;

    private static final int TOTAL = 0;
    private static final int CONNECT = 1;
    private static final int WAITING = 2;
    private static final int PROCESSING = 3;
    private static final int HANDSHAKE = 4;

    private final WriterReaderPhaser phaser = new WriterReaderPhaser();
    /** total, connect, waiting, processing: the set being written. */
    private volatile Histogram[] active = histograms();
    /** The set the reader drains (reader side only). */
    private Histogram[] inactive = histograms();
    private final AtomicLongArray counters = new AtomicLongArray(Tally.SIZE);
    private final Map<ErrorClass, String> firstMessages;
    /** What the first connection set up negotiated ("HTTP/2 over TLSv1.3 (...)"); null until one is up. */
    private volatile String protocol;

    LoopStats(Map<ErrorClass, String> firstMessages) {
        this.firstMessages = firstMessages;
    }

    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_US, DIGITS);
    }

    private static Histogram[] histograms() {
        return new Histogram[] {newHistogram(), newHistogram(), newHistogram(), newHistogram(), newHistogram()};
    }

    /** A response ended: total, connect, waiting (request written to first byte) in nanoseconds. */
    void response(int status, long totalNs, long connectNs, long waitingNs, long bodyBytes) {
        long phase = phaser.writerCriticalSectionEnter();
        try {
            Histogram[] h = active;
            h[TOTAL].recordValue(clamp(totalNs));
            h[CONNECT].recordValue(clamp(connectNs));
            h[WAITING].recordValue(clamp(waitingNs));
            h[PROCESSING].recordValue(clamp(totalNs - connectNs));
        } finally {
            phaser.writerCriticalSectionExit(phase);
        }
        add(Tally.RESPONSES, 1);
        add(Tally.BYTES, bodyBytes);
        add(Tally.STATUS_BASE + Math.min(5, Math.max(1, status / 100)) - 1, 1);
        ErrorClass e = ErrorClass.ofStatus(status);
        if (e == null) {
            add(Tally.SUCCESSES, 1);
        } else {
            add(Tally.ERRORS_BASE + e.ordinal(), 1);
        }
    }

    /** A request timed out: it is recorded at its age, never dropped. */
    void timeout(long ageNs) {
        long phase = phaser.writerCriticalSectionEnter();
        try {
            Histogram[] h = active;
            h[TOTAL].recordValue(clamp(ageNs));
            h[PROCESSING].recordValue(clamp(ageNs));
        } finally {
            phaser.writerCriticalSectionExit(phase);
        }
        error(ErrorClass.READ_TIMEOUT, null);
    }

    /** A request the open-loop schedule owed but could not send before the end; recorded at its lateness. */
    void unsent(long lateNs) {
        long phase = phaser.writerCriticalSectionEnter();
        try {
            active[TOTAL].recordValue(clamp(lateNs));
        } finally {
            phaser.writerCriticalSectionExit(phase);
        }
        add(Tally.UNSENT, 1);
    }

    void error(ErrorClass e, Throwable cause) {
        add(Tally.ERRORS_BASE + e.ordinal(), 1);
        if (cause != null && !firstMessages.containsKey(e)) {
            firstMessages.putIfAbsent(e, String.valueOf(cause.getMessage()));
        }
    }

    void connectionOpened() {
        add(Tally.CONNECTIONS, 1);
    }

    /**
     * A connection is ready to carry requests: {@code handshakeNs} is its TLS handshake (recorded once per
     * connection, not per request, so the figure is what a connection setup costs), {@code negotiated} what it
     * speaks; only the first is kept (every connection of a run asks for the same thing).
     */
    void connectionReady(long handshakeNs, String negotiated) {
        if (handshakeNs >= 0) {
            long phase = phaser.writerCriticalSectionEnter();
            try {
                active[HANDSHAKE].recordValue(clamp(handshakeNs));
            } finally {
                phaser.writerCriticalSectionExit(phase);
            }
        }
        if (protocol == null && negotiated != null) {
            protocol = negotiated;
        }
    }

    String protocol() {
        return protocol;
    }

    private void add(int index, long delta) {
        counters.lazySet(index, counters.get(index) + delta);
    }

    private static long clamp(long ns) {
        return Math.min(HIGHEST_US, Math.max(0, ns / 1000));
    }

    /** Moves this loop's interval latencies into the given histograms (reader side; allocates nothing). */
    void drainInto(Histogram totalTo, Histogram connectTo, Histogram waitingTo, Histogram processingTo,
            Histogram handshakeTo) {
        Histogram[] drained;
        phaser.readerLock();
        try {
            drained = active;
            active = inactive;
            phaser.flipPhase(); // returns once no writer is still recording into the set just swapped out
        } finally {
            phaser.readerUnlock();
        }
        inactive = drained;
        Histogram[] targets = {totalTo, connectTo, waitingTo, processingTo, handshakeTo};
        for (int i = 0; i < targets.length; i++) {
            targets[i].add(drained[i]);
            drained[i].reset();
        }
    }

    /** The cumulative counters so far (reader side). */
    Tally counters() {
        long[] values = new long[Tally.SIZE];
        for (int i = 0; i < values.length; i++) {
            values[i] = counters.get(i);
        }
        return new Tally(values);
    }

    static Map<ErrorClass, String> newMessageMap() {
        return new ConcurrentHashMap<>();
    }
}
