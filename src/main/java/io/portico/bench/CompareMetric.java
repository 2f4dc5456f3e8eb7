package io.portico.bench;

import java.util.function.ToDoubleFunction;

/** The figures a comparison puts side by side. */
public enum CompareMetric {
    THROUGHPUT("throughput (req/s)", BenchResult::transactionRate),
    P50("p50 (ms)", r -> r.latencyMs(50)),
    P90("p90 (ms)", r -> r.latencyMs(90)),
    P99("p99 (ms)", r -> r.latencyMs(99)),
    P999("p99.9 (ms)", r -> r.latencyMs(99.9)),
    MAX("max (ms)", BenchResult::maxMs),
    AVAILABILITY("availability (%)", BenchResult::availabilityPercent),
    ERRORS("errors (%)", BenchResult::errorPercent);

    private final String label;
    private final ToDoubleFunction<BenchResult> value;

    CompareMetric(String label, ToDoubleFunction<BenchResult> value) {
        this.label = label;
        this.value = value;
    }

    public String label() {
        return label;
    }

    public double of(BenchResult r) {
        return value.applyAsDouble(r);
    }
}
