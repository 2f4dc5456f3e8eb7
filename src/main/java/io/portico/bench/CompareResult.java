package io.portico.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A finished comparison: each round's result for A and B (run interleaved A B A B ...), the merged results, and
 * the reason no ratio may be printed (null when ratios are meaningful).
 */
public record CompareResult(String nameA, String nameB, List<BenchResult> roundsA, List<BenchResult> roundsB,
        String refusal) {

    public CompareResult {
        roundsA = List.copyOf(roundsA);
        roundsB = List.copyOf(roundsB);
    }

    public BenchResult a() {
        return ResultMerge.merge(roundsA);
    }

    public BenchResult b() {
        return ResultMerge.merge(roundsB);
    }

    /** B/A over the merged rounds; NaN when A is 0. */
    public double ratio(CompareMetric m) {
        return ratio(m.of(a()), m.of(b()));
    }

    /** B/A of each round, in round order. */
    public List<Double> roundRatios(CompareMetric m) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(roundsA.size(), roundsB.size()); i++) {
            ratios.add(ratio(m.of(roundsA.get(i)), m.of(roundsB.get(i))));
        }
        return ratios;
    }

    static double ratio(double a, double b) {
        return a == 0 ? Double.NaN : b / a;
    }
}
