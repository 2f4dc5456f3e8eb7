package io.portico.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * One {@code --assert} checked: the expression as typed, what was measured (NaN when there was nothing to measure,
 * e.g. a ratio of a refused comparison), the bound, and whether it held. {@code unit} is what both numbers are in
 * ({@code ms}, {@code %}, {@code x} for a ratio, empty for counts and rates).
 */
public record AssertionResult(String expression, String metric, double measured, String op, double threshold,
        String unit, boolean passed, String reason) {

    /** Compares {@code measured} with the bound; NaN never passes. */
    static AssertionResult check(String expression, String metric, double measured, String op, double threshold,
            String unit, String whyNotMeasured) {
        boolean ok = !Double.isNaN(measured) && switch (op) {
            case "<" -> measured < threshold;
            case "<=" -> measured <= threshold;
            case ">" -> measured > threshold;
            case ">=" -> measured >= threshold;
            default -> throw new IllegalStateException(op);
        };
        return new AssertionResult(expression, metric, measured, op, threshold, unit, ok,
                Double.isNaN(measured) ? whyNotMeasured : null);
    }

    /** {@code pass  p99<50ms  (measured p99 = 1.234 ms, expected < 50 ms)}. */
    public String line() {
        String measuredText = Double.isNaN(measured) ? "not measured: " + reason
                : "measured %s = %s%s, expected %s %s%s".formatted(metric, number(measured), suffix(), op,
                        number(threshold), suffix());
        return "%s  %s  (%s)".formatted(passed ? "pass" : "FAIL", expression, measuredText);
    }

    /** The message a failed bound prints on stderr. */
    public String failure() {
        return "assertion failed: %s (%s)".formatted(expression, Double.isNaN(measured) ? "not measured: " + reason
                : "measured %s = %s%s, expected %s %s%s".formatted(metric, number(measured), suffix(), op,
                        number(threshold), suffix()));
    }

    /** {@code v} in this assertion's unit: {@code 1.2 ms}, {@code 0.9x}, {@code 0.1%}, {@code 1000}. */
    String withUnit(double v) {
        return number(v) + suffix();
    }

    private String suffix() {
        return unit.isEmpty() || unit.equals("%") || unit.equals("x") ? unit : " " + unit;
    }

    /** {@code v} to three decimals, without trailing zeros: 2, 0.9, 1.234. */
    static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return String.valueOf(v);
        }
        return BigDecimal.valueOf(v).setScale(3, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
