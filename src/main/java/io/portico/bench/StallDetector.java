package io.portico.bench;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Spots closed-loop runs whose figures hide a stall: a closed loop stops sending while the server is stuck, so
 * the stall shows as a few slow requests and a dip in throughput instead of in the percentiles.
 */
final class StallDetector {

    private StallDetector() {
    }

    static List<String> warnings(BenchOptions options, Histogram total, List<IntervalSample> timeline) {
        List<String> warnings = new ArrayList<>();
        if (options.openLoop() || total.getTotalCount() == 0) {
            return warnings;
        }
        long median = total.getValueAtPercentile(50);
        long max = total.getMaxValue();
        String advice = "; a closed loop stops sending while the server stalls, so the percentiles understate it. "
                + "Re-run with a fixed rate (-R, e.g. -R %.0f) to count the stall in the percentiles"
                        .formatted(suggestedRate(timeline));
        if (median > 0 && max > 50 * median) {
            warnings.add("warning: the run looks stalled: longest request %.1f ms is %.0fx the median %.2f ms"
                    .formatted(max / 1000.0, (double) max / median, median / 1000.0) + advice);
            return warnings;
        }
        double[] full = timeline.stream().filter(s -> s.durationS() >= 0.99).mapToDouble(IntervalSample::rps)
                .sorted().toArray();
        if (full.length >= 3) {
            double medianRps = full[full.length / 2];
            if (full[0] < medianRps / 2) {
                warnings.add("warning: the run looks stalled: one second ran %.0f req/s against a median of %.0f"
                        .formatted(full[0], medianRps) + advice);
            }
        }
        return warnings;
    }

    private static double suggestedRate(List<IntervalSample> timeline) {
        double[] rps = timeline.stream().mapToDouble(IntervalSample::rps).sorted().toArray();
        return rps.length == 0 ? 100 : Math.max(1, Math.round(rps[rps.length / 2] * 0.8));
    }
}
