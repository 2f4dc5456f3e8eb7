package io.portico.bench;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart as inline SVG (no script, no external resource) that scales to the page's width: both axes start
 * at 0 and carry round ticks (1, 2 or 5 times a power of ten), one polyline per line, the legend on the right.
 */
final class SvgChart {

    record Line(String name, String color, boolean dashed, double[] xs, double[] ys) {
    }

    /** An x tick: where, and what to write there. */
    record Tick(double x, String label) {
    }

    private static final int W = 960;
    private static final int H = 300;
    private static final int LEFT = 64;
    private static final int RIGHT = 170;
    private static final int TOP = 30;
    private static final int BOTTOM = 42;
    private static final int TICKS = 5;

    private SvgChart() {
    }

    /** {@code xTicks}: fixed ticks (the percentile axis), or null for round ticks from 0 to the data's end. */
    static String render(String title, String xLabel, String yLabel, List<Line> lines, List<Tick> xTicks) {
        double dataMaxX = 0;
        double dataMaxY = 0;
        for (Line l : lines) {
            for (double x : l.xs()) {
                dataMaxX = Math.max(dataMaxX, x);
            }
            for (double y : l.ys()) {
                dataMaxY = Math.max(dataMaxY, y);
            }
        }
        double yStep = step(dataMaxY);
        double maxY = Math.max(yStep, Math.ceil(dataMaxY / yStep - 1e-9) * yStep);
        List<Tick> ticks = xTicks;
        double maxX;
        if (ticks == null) {
            double xStep = step(dataMaxX);
            maxX = Math.max(xStep, Math.ceil(dataMaxX / xStep - 1e-9) * xStep);
            ticks = new ArrayList<>();
            for (double x = 0; x <= maxX + xStep / 2; x += xStep) {
                ticks.add(new Tick(x, label(x, xStep)));
            }
        } else {
            maxX = ticks.stream().mapToDouble(Tick::x).max().orElse(1);
        }
        double pw = W - LEFT - RIGHT;
        double ph = H - TOP - BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
                + "font-family=\"sans-serif\" font-size=\"12\" role=\"img\" aria-label=\"%s\">", W, H, esc(title)));
        sb.append(f("<text x=\"%d\" y=\"18\" font-size=\"15\" font-weight=\"bold\">%s</text>", LEFT, esc(title)));
        for (double y = 0; y <= maxY + yStep / 2; y += yStep) {
            double py = TOP + ph - ph * y / maxY;
            sb.append(f("<line x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>", LEFT, LEFT + pw,
                    py, py));
            sb.append(f("<text class=\"y-tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", LEFT - 6, py + 4,
                    label(y, yStep)));
        }
        for (Tick t : ticks) {
            double px = LEFT + pw * t.x() / maxX;
            sb.append(f("<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.0f\" stroke=\"#e4e4e4\"/>", px, px, TOP,
                    TOP + ph));
            sb.append(f("<text class=\"x-tick\" x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>", px,
                    TOP + ph + 16,
                    esc(t.label())));
        }
        sb.append(f("<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>", LEFT, TOP,
                pw, ph));
        sb.append(f("<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">%s</text>", LEFT + pw / 2, H - 6, esc(xLabel)));
        sb.append(f("<text x=\"14\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">%s</text>",
                TOP + ph / 2, TOP + ph / 2, esc(yLabel)));
        int legend = 0;
        for (Line l : lines) {
            StringBuilder pts = new StringBuilder();
            for (int i = 0; i < l.xs().length; i++) {
                pts.append(f("%.1f,%.1f ", LEFT + pw * l.xs()[i] / maxX, TOP + ph - ph * l.ys()[i] / maxY));
            }
            sb.append(f("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"%s\"/>", l.color(),
                    l.dashed() ? " stroke-dasharray=\"6,4\"" : "", pts.toString().trim()));
            double ly = TOP + 10 + 18 * legend++;
            sb.append(f("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>",
                    LEFT + pw + 12, LEFT + pw + 36, ly, ly, l.color(), l.dashed() ? " stroke-dasharray=\"6,4\"" : ""));
            sb.append(f("<text x=\"%.0f\" y=\"%.0f\">%s</text>", LEFT + pw + 42, ly + 4, esc(l.name())));
        }
        return sb.append("</svg>").toString();
    }

    /** A round tick step (1, 2 or 5 times a power of ten) that cuts {@code max} into about five parts. */
    static double step(double max) {
        if (!(max > 0) || Double.isInfinite(max)) {
            return 1;
        }
        double raw = max / TICKS;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double norm = raw / magnitude;
        return (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
    }

    /** {@code v} with as many decimals as {@code step} has, no more: 0, 0.2, 0.4; 500, 1000. */
    static String label(double v, double step) {
        int decimals = Math.max(0, (int) -Math.floor(Math.log10(step)));
        return BigDecimal.valueOf(v).setScale(decimals, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
