package io.portico.metrics;

import io.portico.ratelimit.ZoneCounters;
import io.portico.upstream.UpstreamServer;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The status page's figures, as JSON or as HTML (HAProxy's stats page and nginx's stub_status in one): uptime,
 * connections by state, the request rate, each upstream server's health, load and failures, each zone's clients
 * and rejections. Both forms come from one pass over the same figures, so they always agree.
 */
final class StatusPage {
    private final PorticoMetrics metrics;
    private final boolean draining;

    StatusPage(PorticoMetrics metrics, boolean draining) {
        this.metrics = metrics;
        this.draining = draining;
    }

    String json() {
        MetricSources s = metrics.sources();
        ConnectionCounts c = s.connections().get();
        StringBuilder b = new StringBuilder(1024);
        b.append("{\"uptime_seconds\":").append((System.currentTimeMillis() - metrics.startMillis()) / 1000)
                .append(",\"draining\":").append(draining)
                .append(",\"connections\":{\"accepted\":").append(accepted())
                .append(",\"open\":").append(c.open()).append(",\"reading\":").append(c.reading())
                .append(",\"writing\":").append(c.writing()).append(",\"waiting\":").append(c.waiting())
                .append("},\"requests\":{\"total\":").append(metrics.requestsTotal())
                .append(",\"per_second\":").append(rate()).append("},\"upstreams\":{");
        boolean firstPool = true;
        for (Map.Entry<String, List<UpstreamServer>> pool : s.upstreams().entrySet()) {
            b.append(firstPool ? "" : ",");
            firstPool = false;
            string(b, pool.getKey()).append(":[");
            boolean first = true;
            for (UpstreamServer server : pool.getValue()) {
                b.append(first ? "" : ",").append("{\"server\":");
                first = false;
                string(b, server.name()).append(",\"up\":").append(server.available())
                        .append(",\"backup\":").append(server.backup())
                        .append(",\"active\":").append(server.active())
                        .append(",\"failures\":").append(metrics.failures(pool.getKey(), server)).append('}');
            }
            b.append(']');
        }
        b.append("},\"zones\":{");
        boolean first = true;
        for (Map.Entry<String, ZoneCounters> z : zones(s)) {
            b.append(first ? "" : ",");
            first = false;
            string(b, z.getKey()).append(":{\"kind\":\"").append(s.rateLimits().containsKey(z.getKey())
                            && s.rateLimits().get(z.getKey()) == z.getValue() ? "rate-limit" : "limit-conn")
                    .append("\",\"clients\":").append(z.getValue().clients())
                    .append(",\"passed\":").append(z.getValue().passed())
                    .append(",\"rejected\":").append(z.getValue().rejected())
                    .append(",\"dry_run\":").append(s.dryRunZones().contains(z.getKey())).append('}');
        }
        b.append('}');
        Map<String, CacheZoneFigures> caches = metrics.cacheFigures();
        if (!caches.isEmpty()) {
            b.append(",\"caches\":{");
            boolean firstCache = true;
            for (Map.Entry<String, CacheZoneFigures> z : caches.entrySet()) {
                CacheZoneFigures f = z.getValue();
                b.append(firstCache ? "" : ",");
                firstCache = false;
                string(b, z.getKey()).append(":{\"hits\":").append(f.hits()).append(",\"misses\":")
                        .append(f.misses()).append(",\"stale\":").append(f.stale() + f.updating())
                        .append(",\"bypass\":").append(f.bypass()).append(",\"entries\":").append(f.entries())
                        .append(",\"bytes\":").append(f.bytes()).append(",\"evictions\":").append(f.evictions())
                        .append('}');
            }
            b.append('}');
        }
        return b.append("}\n").toString();
    }

    String html() {
        MetricSources s = metrics.sources();
        ConnectionCounts c = s.connections().get();
        StringBuilder b = new StringBuilder(4096);
        b.append("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Portico status</title>\n<style>"
                + "body{font:14px sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}"
                + "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}th{background:#eee}"
                + ".down{background:#fcc}</style></head><body>\n<h1>Portico status</h1>\n<p>Up ")
                .append(uptime()).append(draining ? " &mdash; <strong>draining</strong>" : "").append("</p>\n")
                .append("<h2>Connections</h2>\n<table><tr><th>accepted</th><th>open</th><th>reading</th>"
                        + "<th>writing</th><th>waiting</th></tr>\n<tr><td>").append(accepted())
                .append("</td><td>").append(c.open()).append("</td><td>").append(c.reading()).append("</td><td>")
                .append(c.writing()).append("</td><td>").append(c.waiting()).append("</td></tr></table>\n")
                .append("<h2>Requests</h2>\n<table><tr><th>total</th><th>per second (last minute)</th></tr>\n<tr><td>")
                .append(metrics.requestsTotal()).append("</td><td>").append(rate()).append("</td></tr></table>\n");
        if (!s.upstreams().isEmpty()) {
            b.append("<h2>Upstreams</h2>\n<table><tr><th>upstream</th><th>server</th><th>health</th>"
                    + "<th>active requests</th><th>failures</th></tr>\n");
            s.upstreams().forEach((pool, servers) -> servers.forEach(server -> {
                b.append(server.available() ? "<tr>" : "<tr class=\"down\">").append("<td>");
                escape(b, pool).append("</td><td>");
                escape(b, server.name()).append(server.backup() ? " (backup)" : "").append("</td><td>")
                        .append(server.available() ? "up" : "down").append("</td><td>").append(server.active())
                        .append("</td><td>").append(metrics.failures(pool, server)).append("</td></tr>\n");
            }));
            b.append("</table>\n");
        }
        List<Map.Entry<String, ZoneCounters>> zones = zones(s);
        if (!zones.isEmpty()) {
            b.append("<h2>Zones</h2>\n<table><tr><th>zone</th><th>clients</th><th>passed</th><th>rejected</th></tr>\n");
            for (Map.Entry<String, ZoneCounters> z : zones) {
                b.append("<tr><td>");
                escape(b, z.getKey()).append(s.dryRunZones().contains(z.getKey()) ? " (dry run)" : "")
                        .append("</td><td>").append(z.getValue().clients()).append("</td><td>")
                        .append(z.getValue().passed()).append("</td><td>").append(z.getValue().rejected())
                        .append("</td></tr>\n");
            }
            b.append("</table>\n");
        }
        Map<String, CacheZoneFigures> caches = metrics.cacheFigures();
        if (!caches.isEmpty()) {
            b.append("<h2>Response caches</h2>\n<table><tr><th>zone</th><th>hits</th><th>misses</th><th>stale</th>"
                    + "<th>bypass</th><th>entries</th><th>bytes</th><th>evictions</th></tr>\n");
            caches.forEach((zone, f) -> {
                b.append("<tr><td>");
                escape(b, zone).append("</td><td>").append(f.hits()).append("</td><td>").append(f.misses())
                        .append("</td><td>").append(f.stale() + f.updating()).append("</td><td>").append(f.bypass())
                        .append("</td><td>").append(f.entries()).append("</td><td>").append(f.bytes())
                        .append("</td><td>").append(f.evictions()).append("</td></tr>\n");
            });
            b.append("</table>\n");
        }
        return b.append("<p><a href=\"?format=json\">JSON</a></p>\n</body></html>\n").toString();
    }

    private static List<Map.Entry<String, ZoneCounters>> zones(MetricSources s) {
        List<Map.Entry<String, ZoneCounters>> all = new java.util.ArrayList<>(s.rateLimits().entrySet());
        all.addAll(s.limitConn().entrySet());
        return all;
    }

    private long accepted() {
        return metrics.acceptedTotal();
    }

    private String rate() {
        return String.format(Locale.ROOT, "%.2f", metrics.rate().perSecond());
    }

    private String uptime() {
        long seconds = (System.currentTimeMillis() - metrics.startMillis()) / 1000;
        return String.format(Locale.ROOT, "%dd %02dh %02dm %02ds", seconds / 86400, seconds / 3600 % 24,
                seconds / 60 % 60, seconds % 60);
    }

    private static StringBuilder string(StringBuilder b, String text) {
        b.append('"');
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (ch == '"' || ch == '\\') {
                b.append('\\').append(ch);
            } else if (ch < 0x20) {
                b.append(String.format(Locale.ROOT, "\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.append('"');
    }

    private static StringBuilder escape(StringBuilder b, String text) {
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                default -> b.append(ch);
            }
        }
        return b;
    }
}
