package io.portico.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * The figures of one client event loop. Written only by that loop (single-writer recorders, release-stores on the
 * counters, so recording costs no lock and no CAS); read once a second by {@link BenchRun}, which takes interval
 * histograms and diffs cumulative counters, so memory stays constant however long the run.
 */
final class LoopStats {

    /** Latencies are recorded in microseconds, from 1 us to 1 hour, 3 significant digits. */
    static final long HIGHEST_US = 3_600_000_000L;
    static final int DIGITS = 3;

    private final SingleWriterRecorder total = recorder();
    private final SingleWriterRecorder connect = recorder();
    private final SingleWriterRecorder waiting = recorder();
    private final SingleWriterRecorder processing = recorder();
    private final AtomicLongArray counters = new AtomicLongArray(Tally.SIZE);
    private final Map<ErrorClass, String> firstMessages;
    /** Reader-side buffers handed back to the recorders each second, so draining allocates nothing. */
    private final Histogram[] recycled = new Histogram[4];

    LoopStats(Map<ErrorClass, String> firstMessages) {
        this.firstMessages = firstMessages;
    }

    static Histogram newHistogram() {
        return new Histogram(1, HIGHEST_US, DIGITS);
    }

    private static SingleWriterRecorder recorder() {
        return new SingleWriterRecorder(1, HIGHEST_US, DIGITS);
    }

    /** A response ended: total, connect, waiting (request written to first byte) in nanoseconds. */
    void response(int status, long totalNs, long connectNs, long waitingNs, long bodyBytes) {
        total.recordValue(clamp(totalNs));
        connect.recordValue(clamp(connectNs));
        waiting.recordValue(clamp(waitingNs));
        processing.recordValue(clamp(totalNs - connectNs));
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
        total.recordValue(clamp(ageNs));
        processing.recordValue(clamp(ageNs));
        error(ErrorClass.READ_TIMEOUT, null);
    }

    /** A request the open-loop schedule owed but could not send before the end; recorded at its lateness. */
    void unsent(long lateNs) {
        total.recordValue(clamp(lateNs));
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

    private void add(int index, long delta) {
        counters.lazySet(index, counters.get(index) + delta);
    }

    private static long clamp(long ns) {
        return Math.min(HIGHEST_US, Math.max(0, ns / 1000));
    }

    /** Moves this loop's interval latencies into the given histograms (reader side; recycles its buffers). */
    void drainInto(Histogram totalTo, Histogram connectTo, Histogram waitingTo, Histogram processingTo) {
        SingleWriterRecorder[] recorders = {total, connect, waiting, processing};
        Histogram[] targets = {totalTo, connectTo, waitingTo, processingTo};
        for (int i = 0; i < recorders.length; i++) {
            recycled[i] = recorders[i].getIntervalHistogram(recycled[i]);
            targets[i].add(recycled[i]);
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
