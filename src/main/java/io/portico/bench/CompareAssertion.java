package io.portico.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bound a comparison must meet ({@code bench compare --assert}). A bound is either a ratio or one side's figure,
 * and its form says which, so that a ratio is never mistaken for an absolute figure:
 * <ul>
 *   <li>{@code METRIC OP NUMBER}, NUMBER without a unit: B/A over the merged rounds, e.g. {@code throughput>=0.9}
 *       (B keeps at least 90 % of A's throughput), {@code p99<=1.2} (B's p99 at most 1.2 times A's). METRIC:
 *       {@code throughput} (or {@code rps}), {@code p50 p90 p99 p999 max availability errors}. The same with a unit
 *       ({@code p99<5ms}) is refused: it reads as B's own figure, which is written {@code b.p99<5ms}.</li>
 *   <li>{@code ratio(METRIC) OP NUMBER}: the same ratio, spelled out.</li>
 *   <li>{@code a.EXPR} or {@code b.EXPR}: a {@code portico bench --assert} expression ({@link Assertion}) on one
 *       side's merged rounds, e.g. {@code b.p99<5ms}, {@code b.errors<0.1%}.</li>
 * </ul>
 * A ratio of a refused comparison, or with A at 0, is not measured and so does not pass.
 */
public record CompareAssertion(String text, CompareMetric ratioOf, String op, double threshold, char side,
        Assertion sideBound) {

    /** A ratio, bare or in {@code ratio(...)}; the unit is captured only to refuse it with a message. */
    private static final Pattern RATIO = Pattern.compile("\\s*(ratio\\s*\\(\\s*)?([a-z0-9]+)(\\s*\\))?\\s*"
            + "(<=|>=|<|>)\\s*([0-9]*\\.?[0-9]+)\\s*([a-z%]+)?\\s*");
    private static final Pattern SIDE = Pattern.compile("\\s*([ab])\\.(.+)");

    public static CompareAssertion parse(String text) {
        String t = text.toLowerCase(Locale.ROOT);
        Matcher side = SIDE.matcher(t);
        if (side.matches()) {
            try {
                return new CompareAssertion(text, null, null, 0, side.group(1).charAt(0),
                        Assertion.parse(side.group(2)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage().replaceFirst("^assert: ", "assert: " + side.group(1)
                        + "."));
            }
        }
        Matcher ratio = RATIO.matcher(t);
        if (!ratio.matches() || (ratio.group(1) == null) != (ratio.group(3) == null)) {
            throw new IllegalArgumentException(("assert: %s (expected: METRIC OP NUMBER for the ratio B/A, e.g. "
                    + "throughput>=0.9 or p99<=1.2, or a.EXPR / b.EXPR for one side, e.g. b.p99<5ms; METRIC one of "
                    + "%s)").formatted(text, metrics()));
        }
        String spelled = ratio.group(1) == null ? "" : "ratio(";
        CompareMetric metric = CompareMetric.byKey(ratio.group(2));
        if (metric == null) {
            throw new IllegalArgumentException("assert: %s (expected: %sMETRIC%s with METRIC one of %s, or a.EXPR / "
                    .formatted(text, spelled, spelled.isEmpty() ? "" : ")", metrics()) + "b.EXPR for any "
                    + "'portico bench --assert' bound on one side)");
        }
        String unit = ratio.group(6);
        if (unit != null) {
            // p99<5ms looks like a bound on B alone; guessing which side would let a CI gate check the wrong thing.
            String bound = ratio.group(2) + ratio.group(4) + ratio.group(5) + unit;
            throw new IllegalArgumentException(("assert: %s (expected: no unit on a ratio B/A; write b.%s for B's own "
                    + "%s, or %s for a ratio)").formatted(text, bound, ratio.group(2), example(metric, ratio.group(2))));
        }
        return new CompareAssertion(text, metric, ratio.group(4), Double.parseDouble(ratio.group(5)), ' ', null);
    }

    /** A ratio bound on {@code metric}, as named: higher is better for throughput and availability, else lower. */
    private static String example(CompareMetric metric, String name) {
        return metric == CompareMetric.THROUGHPUT || metric == CompareMetric.AVAILABILITY
                ? name + ">=0.9" : name + "<=1.2";
    }

    private static String metrics() {
        return "throughput (or rps), " + String.join(", ", Arrays.stream(CompareMetric.values())
                .filter(m -> m != CompareMetric.THROUGHPUT).map(CompareMetric::key).toList());
    }

    public AssertionResult check(CompareResult c) {
        if (sideBound != null) {
            return sideBound.check(text, side == 'a' ? c.a() : c.b());
        }
        double ratio = c.refusal() != null ? Double.NaN : c.ratio(ratioOf);
        String why = c.refusal() != null ? "no ratio, " + c.refusal() : "A's " + ratioOf.key() + " is 0";
        return AssertionResult.check(text, "B/A " + ratioOf.key(), Double.isInfinite(ratio) ? Double.NaN : ratio, op,
                threshold, "x", why);
    }
}
