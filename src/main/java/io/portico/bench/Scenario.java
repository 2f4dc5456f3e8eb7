package io.portico.bench;

import java.util.List;

/**
 * One comparison of a report: its name, the result, the metrics worth showing for it (all of them for a plain
 * {@code bench compare}), what the reader must know to read it ({@code notes}: shared cores, known distortions)
 * and the {@code --assert} results.
 */
public record Scenario(String name, CompareResult result, List<CompareMetric> metrics, List<String> notes,
        List<AssertionResult> assertions) {

    public Scenario {
        metrics = List.copyOf(metrics);
        notes = List.copyOf(notes);
        assertions = List.copyOf(assertions);
    }

    /** The same scenario with {@code checks} evaluated against it. */
    public Scenario checked(List<CompareAssertion> checks) {
        return new Scenario(name, result, metrics, notes, checks.stream().map(a -> a.check(result)).toList());
    }

    public boolean refused() {
        return result.refusal() != null;
    }

    public boolean failed() {
        return assertions.stream().anyMatch(a -> !a.passed());
    }
}
