package io.portico.bench;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A bound a comparison must meet ({@code bench compare --assert}). Two forms, so that a ratio is never mistaken for
 * an absolute figure:
 * <ul>
 *   <li>{@code ratio(METRIC) OP NUMBER}: B/A over the merged rounds, e.g. {@code ratio(rps)>=0.9} (B keeps at
 *       least 90 % of A's throughput), {@code ratio(p99)<=1.2}. METRIC: {@code rps} (or {@code throughput}),
 *       {@code p50 p90 p99 p999 max availability errors}.</li>
 *   <li>{@code a.EXPR} or {@code b.EXPR}: a {@code portico bench --assert} expression ({@link Assertion}) on one
 *       side's merged rounds, e.g. {@code b.p99<5ms}, {@code b.errors<0.1%}.</li>
 * </ul>
 * A ratio of a refused comparison, or with A at 0, is not measured and so does not pass.
 */
public record CompareAssertion(String text, CompareMetric ratioOf, String op, double threshold, char side,
        Assertion sideBound) {

    private static final Pattern RATIO = Pattern.compile(
            "\\s*ratio\\s*\\(\\s*([a-z0-9]+)\\s*\\)\\s*(<=|>=|<|>)\\s*([0-9]*\\.?[0-9]+)\\s*");
    private static final Pattern SIDE = Pattern.compile("\\s*([ab])\\.(.+)");

    public static CompareAssertion parse(String text) {
        String t = text.toLowerCase(Locale.ROOT);
        Matcher ratio = RATIO.matcher(t);
        if (ratio.matches()) {
            CompareMetric metric = CompareMetric.byKey(ratio.group(1));
            if (metric == null) {
                throw new IllegalArgumentException("assert: %s (expected: ratio(METRIC) with METRIC one of %s)"
                        .formatted(text, CompareMetric.keys()));
            }
            return new CompareAssertion(text, metric, ratio.group(2), Double.parseDouble(ratio.group(3)), ' ',
                    null);
        }
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
        throw new IllegalArgumentException(("assert: %s (expected: ratio(METRIC) OP NUMBER for B/A, e.g. "
                + "ratio(rps)>=0.9 or ratio(p99)<=1.2, or a.EXPR / b.EXPR for one side, e.g. b.p99<5ms; METRIC one "
                + "of %s)").formatted(text, CompareMetric.keys()));
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
