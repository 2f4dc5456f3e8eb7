package io.portico.bench;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * One self-contained HTML page (inline SVG, no script, no CDN: works offline): latency over time, throughput over
 * time and the percentile spectrum, with every series overlaid (one for a run, A and B in compare mode).
 */
public final class HtmlReport {

    /** A named run to draw. */
    public record Series(String name, BenchResult result) {
    }

    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};
    private static final double[] SPECTRUM = {0, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.75, 99.9, 99.95, 99.975, 99.99,
        99.995, 99.999};

    private HtmlReport() {
    }

    public static String render(List<Series> series, String commandLine) {
        List<SvgChart.Line> latency = new ArrayList<>();
        List<SvgChart.Line> throughput = new ArrayList<>();
        List<SvgChart.Line> spectrum = new ArrayList<>();
        StringBuilder summary = new StringBuilder();
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String color = COLORS[i % COLORS.length];
            List<IntervalSample> tl = s.result().timeline();
            double[] ts = tl.stream().mapToDouble(x -> x.startS() + x.durationS()).toArray();
            latency.add(new SvgChart.Line(s.name() + " p99", color, false, ts,
                    tl.stream().mapToDouble(IntervalSample::p99Ms).toArray()));
            latency.add(new SvgChart.Line(s.name() + " p50", color, true, ts,
                    tl.stream().mapToDouble(IntervalSample::p50Ms).toArray()));
            throughput.add(new SvgChart.Line(s.name(), color, false, ts,
                    tl.stream().mapToDouble(IntervalSample::rps).toArray()));
            spectrum.add(spectrumLine(s.name(), color, s.result().total()));
            summary.append("<h3>").append(SvgChart.esc(s.name())).append("</h3><pre>")
                    .append(SvgChart.esc(TextReport.render(s.result()))).append("</pre>");
        }
        List<SvgChart.Tick> ticks = new ArrayList<>();
        for (String p : new String[] {"0", "90", "99", "99.9", "99.99", "99.999"}) {
            ticks.add(new SvgChart.Tick(spectrumX(Double.parseDouble(p)), p + "%"));
        }
        return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>portico bench</title>"
                + "<style>body{font-family:sans-serif;margin:20px}pre{background:#f6f6f6;padding:8px}</style>"
                + "</head><body><h1>portico bench</h1><p><code>" + SvgChart.esc(commandLine) + "</code></p>"
                + SvgChart.render("Latency over time", "seconds", "ms", latency, null) + "<br>"
                + SvgChart.render("Throughput over time", "seconds", "requests/s", throughput, null) + "<br>"
                + SvgChart.render("Latency by percentile", "percentile", "ms", spectrum, ticks)
                + summary + "</body></html>\n";
    }

    private static SvgChart.Line spectrumLine(String name, String color, Histogram h) {
        double[] xs = new double[SPECTRUM.length];
        double[] ys = new double[SPECTRUM.length];
        for (int i = 0; i < SPECTRUM.length; i++) {
            xs[i] = spectrumX(SPECTRUM[i]);
            ys[i] = h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(SPECTRUM[i]) / 1000.0;
        }
        return new SvgChart.Line(name, color, false, xs, ys);
    }

    /** The usual HdrHistogram x axis: log10(1 / (1 - p)), so 90, 99, 99.9 are evenly spaced. */
    private static double spectrumX(double percentile) {
        return Math.log10(1 / (1 - Math.min(percentile, 99.999) / 100));
    }
}
