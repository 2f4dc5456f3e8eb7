package io.portico.bench;

import java.util.List;
import java.util.Locale;

/** A line chart as inline SVG (no script, no external resource): axes, a few ticks, one polyline per line. */
final class SvgChart {

    record Line(String name, String color, boolean dashed, double[] xs, double[] ys) {
    }

    /** An x tick: where, and what to write there. */
    record Tick(double x, String label) {
    }

    private static final int W = 720;
    private static final int H = 260;
    private static final int LEFT = 60;
    private static final int RIGHT = 150;
    private static final int TOP = 30;
    private static final int BOTTOM = 40;

    private SvgChart() {
    }

    static String render(String title, String xLabel, String yLabel, List<Line> lines, List<Tick> xTicks) {
        double maxX = 1e-9;
        double maxY = 1e-9;
        for (Line l : lines) {
            for (double x : l.xs()) {
                maxX = Math.max(maxX, x);
            }
            for (double y : l.ys()) {
                maxY = Math.max(maxY, y);
            }
        }
        maxY *= 1.1;
        double pw = W - LEFT - RIGHT;
        double ph = H - TOP - BOTTOM;
        StringBuilder sb = new StringBuilder();
        sb.append(f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
                + "font-size=\"11\">", W, H));
        sb.append(f("<text x=\"%d\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>", LEFT, esc(title)));
        sb.append(f("<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>", LEFT, TOP,
                pw, ph));
        for (int i = 0; i <= 4; i++) {
            double y = TOP + ph - ph * i / 4;
            sb.append(f("<line x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>",
                    LEFT, LEFT + pw, y, y));
            sb.append(f("<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>", LEFT - 4, y + 4,
                    num(maxY * i / 4)));
        }
        List<Tick> ticks = xTicks != null ? xTicks
                : List.of(new Tick(0, "0"), new Tick(maxX / 2, num(maxX / 2)), new Tick(maxX, num(maxX)));
        for (Tick t : ticks) {
            double x = LEFT + pw * t.x() / maxX;
            sb.append(f("<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>", x, TOP + ph + 14,
                    esc(t.label())));
        }
        sb.append(f("<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">%s</text>", LEFT + pw / 2, H - 6, esc(xLabel)));
        sb.append(f("<text x=\"12\" y=\"%.0f\" transform=\"rotate(-90 12 %.0f)\" text-anchor=\"middle\">%s</text>",
                TOP + ph / 2, TOP + ph / 2, esc(yLabel)));
        int legend = 0;
        for (Line l : lines) {
            StringBuilder pts = new StringBuilder();
            for (int i = 0; i < l.xs().length; i++) {
                pts.append(f("%.1f,%.1f ", LEFT + pw * l.xs()[i] / maxX, TOP + ph - ph * l.ys()[i] / maxY));
            }
            sb.append(f("<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"%s\"/>", l.color(),
                    l.dashed() ? " stroke-dasharray=\"5,3\"" : "", pts.toString().trim()));
            double ly = TOP + 10 + 16 * legend++;
            sb.append(f("<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>",
                    LEFT + pw + 10, LEFT + pw + 30, ly, ly, l.color(), l.dashed() ? " stroke-dasharray=\"5,3\"" : ""));
            sb.append(f("<text x=\"%.0f\" y=\"%.0f\">%s</text>", LEFT + pw + 34, ly + 4, esc(l.name())));
        }
        return sb.append("</svg>").toString();
    }

    static String num(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return v >= 1 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String f(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }
}
