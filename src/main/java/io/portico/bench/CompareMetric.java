package io.portico.bench;

import java.util.function.ToDoubleFunction;

/** The figures a comparison puts side by side. */
public enum CompareMetric {
    THROUGHPUT("rps", "throughput (req/s)", BenchResult::transactionRate),
    P50("p50", "p50 (ms)", r -> r.latencyMs(50)),
    P90("p90", "p90 (ms)", r -> r.latencyMs(90)),
    P99("p99", "p99 (ms)", r -> r.latencyMs(99)),
    P999("p999", "p99.9 (ms)", r -> r.latencyMs(99.9)),
    MAX("max", "max (ms)", BenchResult::maxMs),
    AVAILABILITY("availability", "availability (%)", BenchResult::availabilityPercent),
    ERRORS("errors", "errors (%)", BenchResult::errorPercent),
    /** Body bytes per response as they came over the wire (compressed when compressed): the compression scenario's. */
    BYTES("bytes", "body bytes/response", BenchResult::bytesPerResponse);

    private final String key;
    private final String label;
    private final ToDoubleFunction<BenchResult> value;

    CompareMetric(String key, String label, ToDoubleFunction<BenchResult> value) {
        this.key = key;
        this.label = label;
        this.value = value;
    }

    /** The name in {@code --assert 'ratio(KEY)...'} and in the JSON report. */
    public String key() {
        return key;
    }

    /** The metric named {@code key} ({@code throughput} is {@code rps}), or null. */
    static CompareMetric byKey(String key) {
        String k = key.equals("throughput") ? "rps" : key;
        for (CompareMetric m : values()) {
            if (m.key.equals(k)) {
                return m;
            }
        }
        return null;
    }

    /** True for a latency, whose value {@link TextReport#duration} prints with a unit that fits. */
    boolean latency() {
        return label.endsWith("(ms)");
    }

    public String label() {
        return label;
    }

    public double of(BenchResult r) {
        return value.applyAsDouble(r);
    }
}
