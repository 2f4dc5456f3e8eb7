package io.portico.bench;

import java.util.List;
import java.util.Locale;

/** The comparison table: each metric for A and B, B/A and its spread over rounds, and a one-line headline. */
public final class CompareReport {

    private CompareReport() {
    }

    public static String render(CompareResult c) {
        return render(new Scenario("", c, List.of(CompareMetric.values()), List.of(), List.of()));
    }

    /** The table of one comparison, its headline, notes and assertion results. */
    public static String render(Scenario s) {
        CompareResult c = s.result();
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "A = %s%nB = %s%n%d round(s) each, interleaved A B A B ...%n%n",
                c.nameA(), c.nameB(), c.roundsA().size()));
        if (c.a().protocol() != null && !c.a().protocol().equals("HTTP/1.1")
                || c.b().protocol() != null && !c.b().protocol().equals("HTTP/1.1")) {
            // https or h2 on a side: what each spoke, and what its handshakes cost, belong next to the ratios
            sb.append("A: ").append(TextReport.protocol(c.a())).append("B: ").append(TextReport.protocol(c.b()))
                    .append('\n');
        }
        sb.append(header());
        for (CompareMetric m : s.metrics()) {
            sb.append(row(c, m, 22));
        }
        sb.append('\n').append(headline(c)).append('\n');
        for (String note : s.notes()) {
            sb.append("note: ").append(note).append('\n');
        }
        if (!s.assertions().isEmpty()) {
            sb.append('\n').append(TextReport.assertions(s.assertions()));
        }
        return sb.toString();
    }

    static String header() {
        return String.format(Locale.ROOT, "%-22s %14s %14s %10s   %s%n", "metric", "A", "B", "B/A",
                "spread over rounds");
    }

    /** One metric's line: A, B (latencies with a unit that fits), B/A and its spread ({@code -} when refused). */
    static String row(CompareResult c, CompareMetric m, int labelWidth) {
        String ratio = "-";
        String spread = "";
        if (c.refusal() == null) {
            ratio = times(c.ratio(m));
            spread = spread(c, m);
        }
        return String.format(Locale.ROOT, "%-" + labelWidth + "s %14s %14s %10s   %s%n", label(m),
                value(m, m.of(c.a())), value(m, m.of(c.b())), ratio, spread);
    }

    /** The metric's name without the unit a latency's value now carries itself. */
    static String label(CompareMetric m) {
        return m.latency() ? m.label().replace(" (ms)", "") : m.label();
    }

    static String value(CompareMetric m, double v) {
        return m.latency() ? TextReport.duration(v) : String.format(Locale.ROOT, "%.2f", v);
    }

    /** The smallest and largest per-round ratio ({@code x0.91..x1.12}), empty when no round has one. */
    static String spread(CompareResult c, CompareMetric m) {
        List<Double> rr = c.roundRatios(m).stream().filter(d -> !d.isNaN()).toList();
        if (rr.isEmpty()) {
            return "";
        }
        return times(rr.stream().mapToDouble(d -> d).min().orElseThrow()) + ".."
                + times(rr.stream().mapToDouble(d -> d).max().orElseThrow());
    }

    /** {@code gain: throughput x12.4, p99 x0.08}, or why there is no ratio. */
    public static String headline(CompareResult c) {
        if (c.refusal() != null) {
            return "no ratio: " + c.refusal();
        }
        return "gain: throughput " + times(c.ratio(CompareMetric.THROUGHPUT)) + ", p99 "
                + times(c.ratio(CompareMetric.P99));
    }

    static String times(double ratio) {
        if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
            return "n/a";
        }
        return ratio >= 10 ? String.format(Locale.ROOT, "x%.1f", ratio)
                : ratio >= 0.01 ? String.format(Locale.ROOT, "x%.2f", ratio)
                : String.format(Locale.ROOT, "x%.4f", ratio);
    }
}
