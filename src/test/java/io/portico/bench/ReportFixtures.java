package io.portico.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Synthetic results for report tests. */
final class ReportFixtures {

    private ReportFixtures() {
    }

    /** {@code responses} successful responses over 1 s, all at {@code latencyMs}. */
    static BenchResult result(long responses, long latencyMs) {
        return result(responses, latencyMs, 0.1, 1.5);
    }

    /** Same, with the client's busiest-loop share {@code busy} and process CPU {@code cpuS} (-1: not measured). */
    static BenchResult result(long responses, long latencyMs, double busy, double cpuS) {
        Histogram h = LoopStats.newHistogram();
        h.recordValueWithCount(latencyMs * 1000, responses);
        long[] v = new long[Tally.SIZE];
        v[Tally.RESPONSES] = responses;
        v[Tally.SUCCESSES] = responses;
        return new BenchResult(Runs.options("http://127.0.0.1:1/", 1, responses, null, 0, Duration.ofSeconds(1)), 1,
                new Tally(v), h, h, h, h, List.of(), List.of(), Map.of(), null, busy, cpuS,
                EnvironmentInfo.current(1, "nio"));
    }

    /** {@code r} with the client's own GC pauses {@code pauses}. */
    static BenchResult withPauses(BenchResult r, ClientPauses pauses) {
        return new BenchResult(r.options(), r.elapsedS(), r.tally(), r.total(), r.connect(), r.waiting(),
                r.processing(), r.timeline(), r.warnings(), r.firstMessages(), r.stoppedEarly(), r.clientBusy(),
                r.clientCpuS(), r.environment(), r.handshake(), r.protocol(), pauses);
    }
}
