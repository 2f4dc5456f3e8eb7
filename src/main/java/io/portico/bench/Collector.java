package io.portico.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Reader side of the loops' figures (the run's thread only): drains interval histograms into the cumulative ones,
 * keeps the per-second timeline and the live progress line, and spots a client that is failing by itself.
 */
final class Collector {

    private final List<LoopStats> stats;
    private final RunClock clock;
    private final PrintWriter progressOut;
    private final Histogram total = LoopStats.newHistogram();
    private final Histogram connect = LoopStats.newHistogram();
    private final Histogram waiting = LoopStats.newHistogram();
    private final Histogram processing = LoopStats.newHistogram();
    private final Histogram handshake = LoopStats.newHistogram();
    private final Histogram interval = LoopStats.newHistogram();
    private final Histogram scratchHandshake = LoopStats.newHistogram();
    private final Histogram scratchConnect = LoopStats.newHistogram();
    private final Histogram scratchWaiting = LoopStats.newHistogram();
    private final Histogram scratchProcessing = LoopStats.newHistogram();
    private final List<IntervalSample> timeline = new ArrayList<>();
    private Tally baseline = Tally.empty();
    private Tally last = Tally.empty();
    private Tally lastDelta = Tally.empty();
    private long lastTickNs;
    private int refusedOnlyTicks;

    Collector(List<LoopStats> stats, RunClock clock, PrintWriter progressOut) {
        this.stats = stats;
        this.clock = clock;
        this.progressOut = progressOut;
        this.lastTickNs = clock.startNs();
    }

    private Tally drain() {
        interval.reset();
        scratchConnect.reset();
        scratchWaiting.reset();
        scratchProcessing.reset();
        scratchHandshake.reset();
        Tally sum = Tally.empty();
        for (LoopStats s : stats) {
            s.drainInto(interval, scratchConnect, scratchWaiting, scratchProcessing, scratchHandshake);
            sum = sum.plus(s.counters());
        }
        return sum;
    }

    /** Warm-up is over: everything so far is dropped. */
    void discardWarmup(long nowNs) {
        baseline = drain();
        last = baseline;
        lastTickNs = nowNs;
        total.reset();
        connect.reset();
        waiting.reset();
        processing.reset();
        handshake.reset();
    }

    void tick(long nowNs) {
        Tally now = drain();
        total.add(interval);
        connect.add(scratchConnect);
        waiting.add(scratchWaiting);
        processing.add(scratchProcessing);
        handshake.add(scratchHandshake);
        lastDelta = now.minus(last);
        last = now;
        if (nowNs > clock.measureStartNs()) {
            timeline.add(new IntervalSample((lastTickNs - clock.measureStartNs()) / 1e9, (nowNs - lastTickNs) / 1e9,
                    lastDelta.responses(), lastDelta.errors(), lastDelta.bytes(), ms(interval, 50), ms(interval, 99),
                    interval.getTotalCount() == 0 ? 0 : interval.getMaxValue() / 1000.0));
        }
        lastTickNs = nowNs;
        if (progressOut != null) {
            Tally t = tally();
            double secs = Math.max(1e-9, (nowNs - clock.measureStartNs()) / 1e9);
            progressOut.printf("\r%s %,d requests  %,.0f req/s  %,d errors  p99 %.1f ms     ",
                    nowNs < clock.measureStartNs() ? "warm-up" : "        ", t.responses(), t.responses() / secs,
                    t.errors(), ms(total, 99));
            progressOut.flush();
        }
    }

    void finish(long endNs) {
        if (endNs > lastTickNs) {
            tick(endNs);
        }
    }

    /** Why the run should stop now, or null: the client failing by itself, or a server refusing everything. */
    String earlyStopReason() {
        long attempts = lastDelta.attempts();
        long clientSide = lastDelta.clientSideErrors();
        if (clientSide >= 10 && clientSide * 2 >= attempts) {
            ErrorClass worst = null;
            for (ErrorClass e : ErrorClass.values()) {
                if (e.clientSide() && (worst == null || lastDelta.errors(e) > lastDelta.errors(worst))) {
                    worst = e;
                }
            }
            return "stopped early: the CLIENT is failing (%s: %d of %d requests in the last second); this is a limit "
                    .formatted(worst.label(), clientSide, attempts)
                    + "of the machine running the benchmark, not a server failure. Fix: " + worst.fix();
        }
        if (tally().responses() == 0 && lastDelta.errors(ErrorClass.TLS_HANDSHAKE) > 0
                && lastDelta.errors(ErrorClass.TLS_HANDSHAKE) == lastDelta.attempts()) {
            return "stopped early: every TLS handshake failed (see the first message); against a test certificate "
                    + "use --insecure";
        }
        boolean refusedOnly = tally().responses() == 0 && lastDelta.errors(ErrorClass.CONNECT_REFUSED) > 0;
        refusedOnlyTicks = refusedOnly ? refusedOnlyTicks + 1 : 0;
        if (refusedOnlyTicks >= 2) {
            return "stopped early: every connection was refused (is the server listening on that address?)";
        }
        return null;
    }

    Tally tally() {
        return last.minus(baseline);
    }

    Histogram total() {
        return total;
    }

    Histogram connect() {
        return connect;
    }

    Histogram handshake() {
        return handshake;
    }

    /** What the connections negotiated, from the first loop that set one up; null when none did. */
    String protocol() {
        for (LoopStats s : stats) {
            if (s.protocol() != null) {
                return s.protocol();
            }
        }
        return null;
    }

    Histogram waiting() {
        return waiting;
    }

    Histogram processing() {
        return processing;
    }

    List<IntervalSample> timeline() {
        return List.copyOf(timeline);
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile) / 1000.0;
    }
}
