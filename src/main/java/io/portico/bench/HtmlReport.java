package io.portico.bench;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * One self-contained HTML page (inline CSS and SVG, no script, no CDN: works offline). It opens with the verdict
 * (the figures a reader came for, each {@code --assert} with pass or fail; for a comparison the table metric / A /
 * B / B/A / spread), then full-width charts (latency and throughput over time, the latency percentile curve on a
 * log axis, both sides overlaid for a comparison), then the text reports. Well-formed XML as well as HTML, so a
 * test can parse it.
 */
public final class HtmlReport {

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
    private static final double[] SPECTRUM = {0, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.75, 99.9, 99.95, 99.975, 99.99,
        99.995, 99.999};
    private static final String STYLE = "body{font-family:sans-serif;margin:24px;max-width:1200px}"
            + "pre{background:#f6f6f6;padding:8px;white-space:pre-wrap}code{background:#f6f6f6;padding:2px 4px}"
            + "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 10px}"
            + "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f0f0;text-align:left}"
            + ".pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}"
            + ".verdict{font-size:1.2em}.note{background:#fff8c5;padding:6px 10px;border-left:4px solid #d4a72c}"
            + "svg{display:block;margin:16px 0}";

    private HtmlReport() {
    }

    /** The report of one {@code portico bench} run. */
    public static String render(BenchResult r, String commandLine, List<AssertionResult> assertions) {
        StringBuilder sb = new StringBuilder();
        page(sb, "portico bench", commandLine, r.environment());
        sb.append("<h2>Result</h2>");
        sb.append("<p class=\"verdict\">").append(esc(verdict(r, assertions))).append("</p>");
        sb.append("<table><tr><th>requests</th><th>req/s</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th>"
                + "<th>max</th><th>errors</th><th>availability</th></tr><tr>");
        cell(sb, String.valueOf(r.tally().responses()));
        cell(sb, String.format(Locale.ROOT, "%.1f", r.transactionRate()));
        for (double p : new double[] {50, 90, 99, 99.9}) {
            cell(sb, TextReport.duration(r.latencyMs(p)));
        }
        cell(sb, TextReport.duration(r.maxMs()));
        cell(sb, String.format(Locale.ROOT, "%d (%.2f%%)", r.tally().errors(), r.errorPercent()));
        cell(sb, String.format(Locale.ROOT, "%.2f%%", r.availabilityPercent()));
        sb.append("</tr></table>");
        sb.append("<p>").append(esc(TextReport.protocol(r)).replace("\n", "<br/>")).append("</p>");
        assertionTable(sb, assertions);
        for (String w : r.warnings()) {
            sb.append("<p class=\"note\">").append(esc(w)).append("</p>");
        }
        charts(sb, List.of(new Side("run", r)));
        sb.append("<h2>Text report</h2><pre>").append(esc(TextReport.render(r))).append("</pre>");
        return sb.append("</body></html>\n").toString();
    }

    /** The report of a comparison: one section per scenario (one for {@code --a}/{@code --b}). */
    public static String renderCompare(List<Scenario> scenarios, String commandLine) {
        StringBuilder sb = new StringBuilder();
        page(sb, "portico bench compare", commandLine, scenarios.isEmpty() ? null
                : scenarios.get(0).result().a().environment());
        if (scenarios.size() > 1) {
            sb.append("<h2>Verdict</h2><table><tr><th>scenario</th><th>result</th><th>assertions</th></tr>");
            for (Scenario s : scenarios) {
                sb.append("<tr><td>").append(esc(s.name())).append("</td><td>")
                        .append(esc(CompareReport.headline(s.result()))).append("</td>");
                assertionSummary(sb, s.assertions());
                sb.append("</tr>");
            }
            sb.append("</table>");
        }
        for (Scenario s : scenarios) {
            section(sb, s, scenarios.size() > 1);
        }
        return sb.append("</body></html>\n").toString();
    }

    private static void section(StringBuilder sb, Scenario s, boolean titled) {
        CompareResult c = s.result();
        sb.append("<section>");
        sb.append("<h2>").append(esc(titled ? s.name() : "Verdict")).append("</h2>");
        sb.append("<p>A = ").append(esc(c.nameA())).append(", B = ").append(esc(c.nameB())).append("; ")
                .append(c.roundsA().size()).append(" round(s) each, interleaved A B A B ...</p>");
        sb.append("<p class=\"verdict ").append(c.refusal() != null || s.failed() ? "fail" : "pass").append("\">")
                .append(esc(CompareReport.headline(c))).append("</p>");
        sb.append("<table><tr><th>metric</th><th>A</th><th>B</th><th>B/A</th><th>spread over rounds</th></tr>");
        for (CompareMetric m : s.metrics()) {
            sb.append("<tr><td>").append(esc(CompareReport.label(m))).append("</td>");
            cell(sb, CompareReport.value(m, m.of(c.a())));
            cell(sb, CompareReport.value(m, m.of(c.b())));
            cell(sb, c.refusal() == null ? CompareReport.times(c.ratio(m)) : "-");
            cell(sb, c.refusal() == null ? CompareReport.spread(c, m) : "");
            sb.append("</tr>");
        }
        sb.append("</table>");
        for (String note : s.notes()) {
            sb.append("<p class=\"note\">").append(esc(note)).append("</p>");
        }
        assertionTable(sb, s.assertions());
        charts(sb, List.of(new Side("A: " + c.nameA(), c.a()), new Side("B: " + c.nameB(), c.b())));
        sb.append("<h3>Text reports</h3><h4>A: ").append(esc(c.nameA())).append("</h4><pre>")
                .append(esc(TextReport.render(c.a()))).append("</pre><h4>B: ").append(esc(c.nameB()))
                .append("</h4><pre>").append(esc(TextReport.render(c.b()))).append("</pre></section>");
    }

    private record Side(String name, BenchResult result) {
    }

    private static void page(StringBuilder sb, String title, String commandLine, EnvironmentInfo env) {
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><title>")
                .append(esc(title)).append("</title><style>").append(STYLE).append("</style></head><body><h1>")
                .append(esc(title)).append("</h1><p><code>").append(esc(commandLine)).append("</code></p><p>")
                .append(Instant.now().truncatedTo(ChronoUnit.SECONDS));
        if (env != null) {
            sb.append(esc(", %d core(s), %s, %s, client: %d event loop(s), %s".formatted(env.cores(), env.os(),
                    env.jvm(), env.clientThreads(), env.transport())));
        }
        sb.append("</p>");
    }

    static String verdict(BenchResult r, List<AssertionResult> assertions) {
        String figures = String.format(Locale.ROOT, "%d requests, %.1f req/s, p99 %s, %d error(s)",
                r.tally().responses(), r.transactionRate(), TextReport.duration(r.latencyMs(99)), r.tally().errors());
        if (r.stoppedEarly() != null) {
            return "Stopped early: " + r.stoppedEarly() + " (" + figures + ")";
        }
        long failed = assertions.stream().filter(a -> !a.passed()).count();
        if (assertions.isEmpty()) {
            return figures;
        }
        return (failed == 0 ? "PASS: every assertion held" : "FAIL: %d of %d assertion(s) missed"
                .formatted(failed, assertions.size())) + " (" + figures + ")";
    }

    private static void assertionTable(StringBuilder sb, List<AssertionResult> assertions) {
        if (assertions.isEmpty()) {
            return;
        }
        sb.append("<table><tr><th>assertion</th><th>result</th><th>measured</th><th>bound</th></tr>");
        for (AssertionResult a : assertions) {
            sb.append("<tr><td><code>").append(esc(a.expression())).append("</code></td><td class=\"")
                    .append(a.passed() ? "pass\">pass" : "fail\">fail").append("</td>");
            cell(sb, Double.isNaN(a.measured()) ? "not measured: " + a.reason()
                    : a.withUnit(a.measured()));
            cell(sb, a.op() + " " + a.withUnit(a.threshold()));
            sb.append("</tr>");
        }
        sb.append("</table>");
    }

    private static void assertionSummary(StringBuilder sb, List<AssertionResult> assertions) {
        long failed = assertions.stream().filter(a -> !a.passed()).count();
        sb.append(assertions.isEmpty() ? "<td>none</td>" : failed == 0 ? "<td class=\"pass\">pass</td>"
                : "<td class=\"fail\">%d failed</td>".formatted(failed));
    }

    private static void charts(StringBuilder sb, List<Side> sides) {
        double maxMs = 0;
        for (Side s : sides) {
            maxMs = Math.max(maxMs, s.result().maxMs());
            for (IntervalSample x : s.result().timeline()) {
                maxMs = Math.max(maxMs, x.p99Ms());
            }
        }
        // one unit per chart, chosen from its largest value, so the ticks are round numbers of that unit
        String unit = maxMs < 1 ? "µs" : maxMs < 1000 ? "ms" : "s";
        double scale = unit.equals("µs") ? 1000 : unit.equals("ms") ? 1 : 0.001;
        List<SvgChart.Line> latency = new ArrayList<>();
        List<SvgChart.Line> throughput = new ArrayList<>();
        List<SvgChart.Line> spectrum = new ArrayList<>();
        for (int i = 0; i < sides.size(); i++) {
            Side s = sides.get(i);
            String color = COLORS[i % COLORS.length];
            List<IntervalSample> tl = s.result().timeline();
            latency.add(steps(s.name() + " p99", color, false, tl, x -> x.p99Ms() * scale));
            latency.add(steps(s.name() + " p50", color, true, tl, x -> x.p50Ms() * scale));
            throughput.add(steps(s.name(), color, false, tl, IntervalSample::rps));
            spectrum.add(spectrumLine(s.name(), color, s.result().total(), scale));
        }
        List<SvgChart.Tick> ticks = new ArrayList<>();
        for (String p : new String[] {"0", "90", "99", "99.9", "99.99", "99.999"}) {
            ticks.add(new SvgChart.Tick(spectrumX(Double.parseDouble(p)), p + "%"));
        }
        sb.append(SvgChart.render("Latency over time (solid p99, dashed p50, per second)", "seconds", unit,
                latency, null));
        sb.append(SvgChart.render("Throughput over time", "seconds", "requests/s", throughput, null));
        sb.append(SvgChart.render("Latency by percentile (log axis: 90, 99, 99.9 ... equally spaced)", "percentile",
                unit, spectrum, ticks));
    }

    /** Each interval drawn over the time it covers (from its start to its end), so the chart starts at 0 s. */
    private static SvgChart.Line steps(String name, String color, boolean dashed, List<IntervalSample> tl,
            java.util.function.ToDoubleFunction<IntervalSample> value) {
        double[] xs = new double[tl.size() * 2];
        double[] ys = new double[tl.size() * 2];
        for (int i = 0; i < tl.size(); i++) {
            IntervalSample s = tl.get(i);
            xs[2 * i] = s.startS();
            xs[2 * i + 1] = s.startS() + s.durationS();
            ys[2 * i] = value.applyAsDouble(s);
            ys[2 * i + 1] = ys[2 * i];
        }
        return new SvgChart.Line(name, color, dashed, xs, ys);
    }

    private static SvgChart.Line spectrumLine(String name, String color, Histogram h, double scale) {
        double[] xs = new double[SPECTRUM.length];
        double[] ys = new double[SPECTRUM.length];
        for (int i = 0; i < SPECTRUM.length; i++) {
            xs[i] = spectrumX(SPECTRUM[i]);
            ys[i] = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(SPECTRUM[i]) / 1000.0 * scale;
        }
        return new SvgChart.Line(name, color, false, xs, ys);
    }

    /** The usual HdrHistogram x axis: log10(1 / (1 - p)), so 90, 99, 99.9 are evenly spaced. */
    private static double spectrumX(double percentile) {
        return Math.log10(1 / (1 - Math.min(percentile, 99.999) / 100));
    }

    private static void cell(StringBuilder sb, String text) {
        sb.append("<td class=\"n\">").append(esc(text)).append("</td>");
    }

    private static String esc(String s) {
        return SvgChart.esc(s == null ? "" : s);
    }
}
