package io.portico.metrics;

import io.portico.ratelimit.ZoneCounters;
import io.portico.upstream.UpstreamServer;
import java.util.List;
import java.util.Map;

/**
 * Renders {@link MetricSources} in the Prometheus text exposition format 0.0.4: each family once, with its
 * {@code # HELP} and {@code # TYPE} lines, then one sample per line. Label values are escaped as the format asks
 * (backslash, double quote, newline).
 */
final class PrometheusText {
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final StringBuilder out = new StringBuilder(2048);

    private PrometheusText() {}

    static String render(MetricSources sources) {
        PrometheusText text = new PrometheusText();
        text.connections(sources);
        text.rateLimits(sources);
        text.limitConn(sources.limitConn());
        text.upstreams(sources.upstreams());
        return text.out.toString();
    }

    private void connections(MetricSources sources) {
        family("portico_connections_open", "gauge", "Client connections open now.");
        sample("portico_connections_open", sources.openConnections().getAsInt());
    }

    private void rateLimits(MetricSources sources) {
        Map<String, ZoneCounters> zones = sources.rateLimits();
        if (zones.isEmpty()) {
            return;
        }
        family("portico_rate_limit_requests_total", "counter", "Requests a rate-limit zone decided on, by result; "
                + "dry_run_delayed and dry_run_rejected are what a dry-run zone would have done (it let them pass).");
        zones.forEach((zone, c) -> {
            boolean dry = sources.dryRunZones().contains(zone);
            result("portico_rate_limit_requests_total", zone, "passed", c.passed());
            result("portico_rate_limit_requests_total", zone, "delayed", dry ? 0 : c.delayed());
            result("portico_rate_limit_requests_total", zone, "rejected", dry ? 0 : c.rejected());
            result("portico_rate_limit_requests_total", zone, "dry_run_delayed", dry ? c.delayed() : 0);
            result("portico_rate_limit_requests_total", zone, "dry_run_rejected", dry ? c.rejected() : 0);
        });
        family("portico_rate_limit_evictions_total", "counter",
                "Clients a rate-limit zone forgot early because it was full (max-clients).");
        zones.forEach((zone, c) -> sample("portico_rate_limit_evictions_total", c.evictions(), "zone", zone));
        family("portico_rate_limit_clients", "gauge", "Clients a rate-limit zone holds state for now (an estimate).");
        zones.forEach((zone, c) -> sample("portico_rate_limit_clients", c.clients(), "zone", zone));
        family("portico_rate_limit_store_failures_total", "counter", "Decisions a zone's Redis store could not make "
                + "within store-timeout, made by its on-store-failure instead (always 0 for a local zone).");
        zones.forEach((zone, c) -> sample("portico_rate_limit_store_failures_total", c.storeFailures(), "zone", zone));
    }

    private void limitConn(Map<String, ZoneCounters> zones) {
        if (zones.isEmpty()) {
            return;
        }
        family("portico_limit_conn_requests_total", "counter", "Requests a limit-conn zone decided on, by result.");
        zones.forEach((zone, c) -> {
            result("portico_limit_conn_requests_total", zone, "passed", c.passed());
            result("portico_limit_conn_requests_total", zone, "rejected", c.rejected());
        });
        family("portico_limit_conn_keys", "gauge", "Keys of a limit-conn zone with a request in progress now.");
        zones.forEach((zone, c) -> sample("portico_limit_conn_keys", c.clients(), "zone", zone));
    }

    private void upstreams(Map<String, List<UpstreamServer>> pools) {
        if (pools.isEmpty()) {
            return;
        }
        family("portico_upstream_server_up", "gauge",
                "1 when the balancer may choose the server (health checks and max-fails), else 0.");
        pools.forEach((pool, servers) -> servers.forEach(s -> sample("portico_upstream_server_up",
                s.available() ? 1 : 0, "upstream", pool, "server", s.toString())));
        family("portico_upstream_server_active_requests", "gauge", "Requests in flight to the server now.");
        pools.forEach((pool, servers) -> servers.forEach(s -> sample("portico_upstream_server_active_requests",
                s.active(), "upstream", pool, "server", s.toString())));
    }

    private void result(String name, String zone, String result, long value) {
        sample(name, value, "zone", zone, "result", result);
    }

    private void family(String name, String type, String help) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    }

    private void sample(String name, long value, String... labels) {
        out.append(name);
        for (int i = 0; i < labels.length; i += 2) {
            out.append(i == 0 ? '{' : ',').append(labels[i]).append("=\"");
            escape(out, labels[i + 1]);
            out.append('"');
        }
        if (labels.length > 0) {
            out.append('}');
        }
        out.append(' ').append(value).append('\n');
    }

    static void escape(StringBuilder out, String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                default -> out.append(c);
            }
        }
    }
}
