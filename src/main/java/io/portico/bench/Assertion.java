package io.portico.bench;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bound a run must meet ({@code --assert 'p99<50ms'}): latency metrics {@code p50 p90 p99 p999 p9999 max mean}
 * with a unit ({@code us ms s}, ms by default), {@code rps} (or {@code throughput}), {@code errors} (a count, or a
 * share with {@code %}) and {@code availability} (percent).
 */
public record Assertion(String text, String metric, String op, double threshold, boolean percent) {

    private static final Pattern SYNTAX = Pattern.compile("\\s*(p50|p90|p99|p999|p9999|max|mean|"
            + "rps|throughput|errors|availability)"
            + "\\s*(<=|>=|<|>)\\s*([0-9.]+)\\s*(us|ms|s|%)?\\s*");

    /** Parses {@code text}; thresholds with a time unit are stored in milliseconds. */
    public static Assertion parse(String text) {
        Matcher m = SYNTAX.matcher(text.toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("assert: %s (expected: METRIC OP VALUE, e.g. p99<50ms, errors<0.1%%, "
                    .formatted(text) + "rps>1000, availability>99.9%; metrics p50 p90 p99 p999 p9999 max mean rps "
                    + "errors availability)");
        }
        String metric = m.group(1).equals("throughput") ? "rps" : m.group(1);
        String unit = m.group(4);
        double value;
        try {
            value = Double.parseDouble(m.group(3));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("assert: %s (expected: a number after the operator)".formatted(text));
        }
        boolean latency = metric.startsWith("p") || metric.equals("max") || metric.equals("mean");
        if (unit != null && latency == unit.equals("%") || !latency && unit != null && !unit.equals("%")) {
            throw new IllegalArgumentException("assert: %s (expected: a time unit for latencies, %% or none for others)"
                    .formatted(text));
        }
        if (latency && unit != null) {
            value = switch (unit) {
                case "us" -> value / 1000;
                case "s" -> value * 1000;
                default -> value;
            };
        }
        return new Assertion(text, metric, m.group(2), value, "%".equals(unit) || metric.equals("availability"));
    }

    /** The measured value this assertion checks (ms for latencies, percent where {@link #percent}). */
    public double measure(BenchResult r) {
        return switch (metric) {
            case "p50" -> r.latencyMs(50);
            case "p90" -> r.latencyMs(90);
            case "p99" -> r.latencyMs(99);
            case "p999" -> r.latencyMs(99.9);
            case "p9999" -> r.latencyMs(99.99);
            case "max" -> r.maxMs();
            case "mean" -> r.meanMs();
            case "rps" -> r.transactionRate();
            case "errors" -> percent ? r.errorPercent() : r.tally().errors();
            case "availability" -> r.availabilityPercent();
            default -> throw new IllegalStateException(metric);
        };
    }

    /** Checks the run against the bound. */
    public AssertionResult check(BenchResult r) {
        return check(text, r);
    }

    /** As {@link #check(BenchResult)}, reported under {@code expression} (compare's {@code b.p99<5ms}). */
    AssertionResult check(String expression, BenchResult r) {
        String unit = percent ? "%" : metric.equals("rps") || metric.equals("errors") ? "" : "ms";
        return AssertionResult.check(expression, metric, measure(r), op, threshold, unit, "no response");
    }

    /** Null when the run meets the bound, else what was measured against what was expected. */
    public String failure(BenchResult r) {
        AssertionResult result = check(r);
        return result.passed() ? null : result.failure();
    }
}
