package io.portico.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Merges the rounds of one side of a comparison into one result: histograms added, counts summed, time summed. */
final class ResultMerge {

    private ResultMerge() {
    }

    static BenchResult merge(List<BenchResult> rounds) {
        BenchResult first = rounds.get(0);
        Histogram total = LoopStats.newHistogram();
        Histogram connect = LoopStats.newHistogram();
        Histogram waiting = LoopStats.newHistogram();
        Histogram processing = LoopStats.newHistogram();
        Histogram handshake = LoopStats.newHistogram();
        Tally tally = Tally.empty();
        double elapsed = 0;
        double busy = -1;
        double cpu = 0;
        ClientPauses pauses = new ClientPauses(0, 0, 0);
        List<IntervalSample> timeline = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        Map<ErrorClass, String> messages = new LinkedHashMap<>();
        String stopped = null;
        for (BenchResult r : rounds) {
            total.add(r.total());
            connect.add(r.connect());
            waiting.add(r.waiting());
            processing.add(r.processing());
            handshake.add(r.handshake());
            tally = tally.plus(r.tally());
            for (IntervalSample s : r.timeline()) {
                timeline.add(new IntervalSample(s.startS() + elapsed, s.durationS(), s.responses(), s.errors(),
                        s.bytes(), s.p50Ms(), s.p99Ms(), s.maxMs()));
            }
            elapsed += r.elapsedS();
            busy = Math.max(busy, r.clientBusy());
            cpu = cpu < 0 || r.clientCpuS() < 0 ? -1 : cpu + r.clientCpuS();
            pauses = pauses.plus(r.clientPauses());
            warnings.addAll(r.warnings());
            r.firstMessages().forEach(messages::putIfAbsent);
            stopped = stopped != null ? stopped : r.stoppedEarly();
        }
        return new BenchResult(first.options(), elapsed, tally, total, connect, waiting, processing, timeline,
                List.copyOf(new java.util.LinkedHashSet<>(warnings)), messages, stopped, busy, cpu,
                first.environment(), handshake, first.protocol(), pauses);
    }
}
