package io.portico.nginx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code limit_req_zone} / {@code limit_req} and {@code limit_conn_zone} / {@code limit_conn}. nginx sets burst,
 * nodelay, delay and status where the zone is used; Portico sets them on the zone, so the first use decides them
 * and a later use with other values is reported (it would need a zone of its own, which would not share counts).
 */
final class Zones {
    private static final Pattern RATE = Pattern.compile("(\\d+)r/([sm])");

    /** One zone and its settings as they are decided by its definition and first use. */
    static final class Zone {
        final String name;
        final Directive definition;
        final boolean conn;
        String key;
        String rate;
        long maxClients;
        Integer burst;
        boolean nodelay;
        int delay;
        int status = 503;
        boolean dryRun;
        Integer max;
        String usedBy;
        final List<String> origins = new ArrayList<>();

        Zone(String name, Directive definition, boolean conn) {
            this.name = name;
            this.definition = definition;
            this.conn = conn;
        }
    }

    private final Map<String, Zone> rate = new LinkedHashMap<>();
    private final Map<String, Zone> conn = new LinkedHashMap<>();
    private final Report report;

    Zones(Report report) {
        this.report = report;
    }

    void define(Directive d) {
        boolean isConn = d.name().equals("limit_conn_zone");
        String zoneArg = d.args().stream().filter(a -> a.startsWith("zone=")).findFirst().orElse("");
        String[] nameSize = zoneArg.substring(Math.min(zoneArg.length(), 5)).split(":", 2);
        if (nameSize[0].isEmpty()) {
            report.unmapped(d, "no zone=NAME:SIZE (nginx refuses it)");
            return;
        }
        Optional<String> key = key(d.arg(0));
        if (key.isEmpty()) {
            report.unmapped(d, "the key " + d.arg(0) + " is not one Portico can count by (client-ip, path, host,"
                    + " header:NAME: $binary_remote_addr, $uri, $host, $http_NAME); locations using the zone are"
                    + " not limited");
            return;
        }
        Zone z = new Zone(nameSize[0], d, isConn);
        z.key = key.get();
        long bytes = nameSize.length > 1 ? NginxValues.bytes(nameSize[1]) : -1;
        // nginx: one megabyte keeps about 16 thousand 64-byte states.
        z.maxClients = bytes > 0 ? Math.max(1000, bytes / 64) : 0;
        if (!isConn) {
            String r = d.args().stream().filter(a -> a.startsWith("rate=")).findFirst().orElse("rate=");
            Matcher m = RATE.matcher(r.substring(5));
            if (!m.matches()) {
                report.unmapped(d, "rate " + r.substring(5) + " (expected: Nr/s or Nr/m)");
                return;
            }
            z.rate = r.substring(5);
            (rate).put(z.name, z);
        } else {
            conn.put(z.name, z);
        }
        report.mapped(d);
    }

    /** nginx key text to Portico's: variables joined become parts joined with +. */
    static Optional<String> key(String text) {
        Matcher m = Pattern.compile("\\$\\{?([A-Za-z0-9_]+)}?").matcher(text);
        List<String> parts = new ArrayList<>();
        int at = 0;
        while (m.find()) {
            if (m.start() != at) {
                return Optional.empty();
            }
            at = m.end();
            String v = m.group(1);
            String part = switch (v) {
                case "binary_remote_addr", "remote_addr" -> "client-ip";
                case "uri", "document_uri" -> "path";
                case "host", "server_name" -> "host";
                default -> v.startsWith("http_") ? "header:" + v.substring(5).replace('_', '-') : null;
            };
            if (part == null) {
                return Optional.empty();
            }
            parts.add(part);
        }
        return at == text.length() && !parts.isEmpty() ? Optional.of(String.join("+", parts)) : Optional.empty();
    }

    /** A limit_req in force at a location: the zone's name for the location's rate-limit, or empty. */
    Optional<String> useRate(Directive d, Scope scope) {
        String name = d.args().stream().filter(a -> a.startsWith("zone=")).map(a -> a.substring(5)).findFirst()
                .orElse("");
        Zone z = rate.get(name);
        if (z == null) {
            report.unmapped(d, "zone " + name + " has no limit_req_zone Portico could map; this location is not"
                    + " limited by it");
            return Optional.empty();
        }
        int burst = 0;
        boolean nodelay = false;
        int delay = 0;
        for (String a : d.args()) {
            if (a.startsWith("burst=")) {
                burst = number(a.substring(6));
            } else if (a.equals("nodelay")) {
                nodelay = true;
            } else if (a.startsWith("delay=")) {
                delay = number(a.substring(6));
            }
        }
        int status = scope.find("limit_req_status").map(s -> number(s.arg(0))).orElse(503);
        if (burst < 0 || delay < 0 || status < 400 || status > 599) {
            report.unmapped(d, "burst, delay or limit_req_status is not a number nginx takes; not limited here");
            return Optional.empty();
        }
        boolean dry = scope.find("limit_req_dry_run").map(s -> s.arg(0).equals("on")).orElse(false);
        scope.find("limit_req_status").ifPresent(report::mapped);
        scope.find("limit_req_dry_run").ifPresent(report::mapped);
        if (z.burst == null) {
            z.burst = burst;
            z.nodelay = nodelay;
            z.delay = delay;
            z.status = status;
            z.dryRun = dry;
            z.usedBy = d.source().toString();
            z.origins.add(d.origin());
        } else if (z.burst != burst || z.nodelay != nodelay || z.delay != delay || z.status != status
                || z.dryRun != dry) {
            report.unmapped(d, "zone " + name + " is used with other burst/nodelay/delay/status/dry-run at "
                    + z.usedBy + "; Portico sets them once per zone (the first use's are written)");
            return Optional.of(name);
        }
        report.mapped(d);
        return Optional.of(name);
    }

    /** A limit_conn in force at a location. */
    Optional<String> useConn(Directive d, Scope scope) {
        Zone z = conn.get(d.arg(0));
        if (z == null) {
            report.unmapped(d, "zone " + d.arg(0) + " has no limit_conn_zone Portico could map; this location is"
                    + " not limited by it");
            return Optional.empty();
        }
        int max = number(d.arg(1));
        int status = scope.find("limit_conn_status").map(s -> number(s.arg(0))).orElse(503);
        if (max <= 0 || status < 400 || status > 599) {
            report.unmapped(d, "the limit or limit_conn_status is not a number nginx takes; not limited here");
            return Optional.empty();
        }
        scope.find("limit_conn_status").ifPresent(report::mapped);
        if (z.max == null) {
            z.max = max;
            z.status = status;
            z.usedBy = d.source().toString();
            z.origins.add(d.origin());
        } else if (z.max != max || z.status != status) {
            report.unmapped(d, "zone " + z.name + " is used with another limit or status at " + z.usedBy
                    + "; Portico sets them once per zone");
            return Optional.of(z.name);
        }
        report.mapped(d);
        return Optional.of(z.name);
    }

    /**
     * nginx keeps a rate in thousandths of a request per second, rounded down ({@code 1r/m} is 16, one request per
     * 62.5 s); Portico's rate is exact. Says so where the two differ.
     */
    static String rateNote(String rate) {
        Matcher m = RATE.matcher(rate);
        if (!m.matches() || m.group(2).equals("s")) {
            return null;
        }
        long perMinute = Long.parseLong(m.group(1));
        long nginxMilli = perMinute * 1000 / 60;
        if (nginxMilli * 60 == perMinute * 1000) {
            return null;
        }
        return String.format(java.util.Locale.ROOT, "exact in Portico; nginx rounds it to %d/1000 r/s (one request"
                + " per %.1f s)", nginxMilli, nginxMilli == 0 ? Double.POSITIVE_INFINITY : 1000.0 / nginxMilli);
    }

    /** A non-negative number, or -1 for text nginx itself would refuse. */
    private static int number(String text) {
        return text.matches("\\d{1,9}") ? Integer.parseInt(text) : -1;
    }

    void write(Hocon h) {
        if (!rate.isEmpty()) {
            h.open("rate-limits {");
            for (Zone z : rate.values()) {
                h.comment(z.definition.origin());
                z.origins.forEach(h::comment);
                h.open(Hocon.key(z.name) + " {");
                h.value("key", Hocon.quote(z.key), null);
                h.value("rate", Hocon.quote(z.rate), rateNote(z.rate));
                h.value("burst", String.valueOf(z.burst == null ? 0 : z.burst), null);
                h.value("nodelay", String.valueOf(z.nodelay), null);
                if (z.delay > 0) {
                    h.value("delay", String.valueOf(z.delay), null);
                }
                h.value("status", String.valueOf(z.status), z.status == 503
                        ? "nginx's limit_req_status default; Portico's own is 429" : null);
                if (z.dryRun) {
                    h.value("dry-run", "true", null);
                }
                if (z.maxClients > 0) {
                    h.value("max-clients", String.valueOf(z.maxClients), "the zone's size at 64 bytes a client");
                }
                if (z.burst == null) {
                    h.comment("no limit_req uses this zone");
                }
                h.close("}");
            }
            h.close("}");
        }
        if (!conn.isEmpty()) {
            h.open("limit-conn {");
            for (Zone z : conn.values()) {
                h.comment(z.definition.origin());
                z.origins.forEach(h::comment);
                if (z.max == null) {
                    h.comment(z.name + ": no limit_conn uses this zone, so it is left out (Portico needs a max)");
                    continue;
                }
                h.open(Hocon.key(z.name) + " {");
                h.value("key", Hocon.quote(z.key), null);
                h.value("max", String.valueOf(z.max), null);
                h.value("status", String.valueOf(z.status), z.status == 503
                        ? "nginx's limit_conn_status default; Portico's own is 429" : null);
                h.close("}");
            }
            h.close("}");
        }
    }

    boolean hasConn(String name) {
        Zone z = conn.get(name);
        return z != null && z.max != null;
    }
}
