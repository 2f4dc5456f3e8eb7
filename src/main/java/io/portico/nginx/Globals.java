package io.portico.nginx;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The settings Portico keeps once for every host and location: {@code limits}, {@code access-log},
 * {@code trusted-proxies}. Taken from http (or, when every server agrees, from the servers); a server or location
 * that sets another value is reported, except client_max_body_size, which a location can carry.
 */
final class Globals {
    private record Limit(String directive, String key, Function<String, Optional<String>> convert) {}

    private static Optional<String> count(String v) {
        return v.matches("\\d+") ? Optional.of(v) : Optional.empty();
    }

    private static final List<Limit> LIMITS = List.of(
            new Limit("keepalive_timeout", "keepalive-timeout", NginxValues::duration),
            new Limit("client_header_timeout", "client-header-timeout", NginxValues::duration),
            new Limit("client_body_timeout", "client-body-timeout", NginxValues::duration),
            new Limit("send_timeout", "send-timeout", NginxValues::duration),
            new Limit("keepalive_requests", "keepalive-requests", Globals::count));

    /**
     * The top-level {@code http2 { }}: nginx's per-server settings of what an HTTP/2 connection announces. nginx
     * announces SETTINGS_INITIAL_WINDOW_SIZE as http2_body_preread_size; http2_max_header_size (obsolete since
     * nginx 1.19.7) limited the decompressed header list as max-header-list-size does.
     */
    private static final List<Limit> HTTP2 = List.of(
            new Limit("http2_max_concurrent_streams", "max-concurrent-streams", Globals::count),
            new Limit("http2_body_preread_size", "initial-window-size", NginxValues::size),
            new Limit("http2_max_header_size", "max-header-list-size", NginxValues::size));

    /** nginx's defaults that differ from Portico's, said in the output where the nginx file leaves them unset. */
    private static final List<String[]> DEFAULTS = List.of(
            new String[] {"client_header_timeout", "client-header-timeout", "60s", "10s"},
            new String[] {"client_body_timeout", "client-body-timeout", "60s", "10s"},
            new String[] {"send_timeout", "send-timeout", "60s", "30s"},
            new String[] {"keepalive_requests", "keepalive-requests", "1000", "10000"});

    private final Report report;
    private final Scope http;
    private final List<Servers.Server> servers;
    private final List<String> lines = new ArrayList<>();
    private final List<String> limitLines = new ArrayList<>();
    private final List<String> http2Lines = new ArrayList<>();
    /** set_real_ip_from's CIDRs: the peers a listen ... proxy_protocol takes the header from. */
    private final List<String> proxyTrusted = new ArrayList<>();
    private Directive proxyTrustedFrom;

    Globals(Report report, Scope http, List<Servers.Server> servers) {
        this.report = report;
        this.http = http;
        this.servers = servers;
        for (Limit l : LIMITS) {
            limit(l, limitLines);
        }
        for (Limit l : HTTP2) {
            limit(l, http2Lines);
        }
        accessLog();
        realIp();
    }

    /** The CIDRs of set_real_ip_from, for the {@code trusted} of PROXY protocol listeners; empty without it. */
    List<String> proxyTrusted() {
        return proxyTrusted;
    }

    /** The first set_real_ip_from, or null. */
    Directive proxyTrustedFrom() {
        return proxyTrustedFrom;
    }

    /** limits.max-body-size: http's client_max_body_size, else nginx's default 1m (Portico's too). */
    long bodySize() {
        Optional<Directive> d = http.here("client_max_body_size");
        if (d.isEmpty()) {
            return 1L << 20;
        }
        long bytes = NginxValues.bytes(d.get().arg(0));
        if (bytes < 0) {
            report.unmapped(d.get(), "not a size");
            return 1L << 20;
        }
        report.mapped(d.get());
        limitLines.add("max-body-size = " + Hocon.quote(bytes == 0 ? "1024g" : NginxValues.size(d.get().arg(0)).get())
                + "  # " + d.get().origin() + (bytes == 0 ? " (0: no limit in nginx)" : ""));
        return bytes;
    }

    private void limit(Limit l, List<String> out) {
        List<Directive> all = new ArrayList<>();
        collect(http.levels().get(0), l.directive(), all, true);
        Optional<Directive> global = http.here(l.directive());
        if (global.isEmpty()) {
            List<Directive> serverLevel = new ArrayList<>();
            for (Servers.Server s : servers) {
                s.scope().here(l.directive()).ifPresent(serverLevel::add);
            }
            if (!serverLevel.isEmpty() && serverLevel.size() == servers.size()
                    && serverLevel.stream().allMatch(d -> d.args().equals(serverLevel.get(0).args()))) {
                global = Optional.of(serverLevel.get(0));
            }
        }
        if (global.isPresent()) {
            Directive g = global.get();
            Optional<String> v = l.convert().apply(g.arg(0));
            if (v.isEmpty()) {
                report.unmapped(g, "not a value Portico reads");
                return;
            }
            report.mapped(g);
            out.add(l.key() + " = " + (v.get().matches("\\d+") ? v.get() : Hocon.quote(v.get())) + "  # "
                    + g.origin());
            if (g.args().size() > 1) {
                report.note(g, "the second value (the Keep-Alive header's timeout) is not sent by Portico");
            }
        }
        for (Directive d : all) {
            if (d == global.orElse(null)) {
                continue;
            }
            if (global.isPresent() && d.args().equals(global.get().args())) {
                report.mapped(d);
            } else {
                report.unmapped(d, "Portico has one " + (out == http2Lines ? "http2." : "") + l.key()
                        + " for every host and location ("
                        + global.map(g -> g.arg(0) + " from " + g.source()).orElse("its default") + ")");
            }
        }
    }

    /** Every {@code name} in servers and locations (not inside upstream blocks, whose keepalive_timeout differs). */
    private static void collect(List<Directive> level, String name, List<Directive> out, boolean top) {
        for (Directive d : level) {
            if (d.isBlock() && (d.name().equals("server") || d.name().equals("location"))) {
                collect(d.block(), name, out, false);
            } else if (!top && !d.isBlock() && d.name().equals(name)) {
                out.add(d);
            }
        }
    }

    private void accessLog() {
        Optional<Directive> d = http.here("access_log");
        d.ifPresent(a -> {
            report.mapped(a);
            String v = a.arg(0);
            if (v.startsWith("syslog:")) {
                report.unmapped(a, "Portico logs to off, stdout or a file");
                return;
            }
            lines.add("access-log = " + Hocon.quote(v.equals("/dev/stdout") ? "stdout" : v) + "  # " + a.origin());
            if (a.args().size() > 1 && !a.arg(1).equals("combined")) {
                report.note(a, "Portico writes nginx's combined format plus request and upstream times, not the"
                        + " format " + a.arg(1));
            }
        });
        List<Directive> inner = new ArrayList<>();
        collect(http.levels().get(0), "access_log", inner, true);
        for (Directive a : inner) {
            if (d.isPresent() && a.args().equals(d.get().args())) {
                report.mapped(a);
            } else {
                report.unmapped(a, "Portico has one access log for every host and location");
            }
        }
    }

    private void realIp() {
        List<String> cidrs = new ArrayList<>();
        List<Directive> from = new ArrayList<>();
        collectAll(http.levels().get(0), "set_real_ip_from", from);
        for (Directive d : from) {
            if (d.arg(0).startsWith("unix:")) {
                report.unmapped(d, "Portico has no trusted unix-socket peers");
                continue;
            }
            report.mapped(d);
            String c = d.arg(0).contains("/") ? d.arg(0) : d.arg(0) + (d.arg(0).contains(":") ? "/128" : "/32");
            if (!cidrs.contains(c)) {
                cidrs.add(c);
            }
        }
        List<Directive> header = new ArrayList<>();
        collectAll(http.levels().get(0), "real_ip_header", header);
        boolean forwardedFor = header.isEmpty();
        for (Directive h : header) {
            if (h.arg(0).equalsIgnoreCase("X-Forwarded-For")) {
                report.mapped(h);
                forwardedFor = true;
            } else if (h.arg(0).equals("proxy_protocol")) {
                // Portico's PROXY listeners always take the header's client as the client.
                report.mapped(h);
            } else {
                report.unmapped(h, "Portico reads the client from X-Forwarded-For only");
            }
        }
        proxyTrusted.addAll(cidrs);
        proxyTrustedFrom = from.isEmpty() ? null : from.get(0);
        if (!forwardedFor) {
            // real_ip_header proxy_protocol: set_real_ip_from names the balancers, whose X-Forwarded-For nginx
            // does not read; they become the PROXY listeners' trusted, not trusted-proxies.
            if (!from.isEmpty()) {
                report.note(from.get(0), "with real_ip_header proxy_protocol these are the balancers: the PROXY"
                        + " listeners' trusted, not trusted-proxies");
            }
            cidrs.clear();
        }
        List<Directive> recursive = new ArrayList<>();
        collectAll(http.levels().get(0), "real_ip_recursive", recursive);
        for (Directive r : recursive) {
            report.mapped(r);
        }
        if (!cidrs.isEmpty()) {
            lines.add("trusted-proxies = " + Hocon.strings(cidrs) + "  # " + from.get(0).origin()
                    + (from.size() > 1 ? " and " + (from.size() - 1) + " more" : ""));
            if (recursive.stream().noneMatch(r -> r.arg(0).equals("on"))) {
                report.note(from.get(0), "Portico takes the right-most X-Forwarded-For address that is not"
                        + " trusted, as real_ip_recursive on; nginx's default (off) takes the last one");
            }
        }
    }

    private static void collectAll(List<Directive> level, String name, List<Directive> out) {
        for (Directive d : level) {
            if (d.isBlock() && !d.name().equals("upstream")) {
                collectAll(d.block(), name, out);
            } else if (d.name().equals(name)) {
                out.add(d);
            }
        }
    }

    void write(Hocon h) {
        lines.forEach(h::line);
        h.open("limits {");
        limitLines.forEach(h::line);
        for (String[] d : DEFAULTS) {
            if (limitLines.stream().noneMatch(l -> l.startsWith(d[1] + " "))) {
                h.comment(d[1] + ": not set in nginx, whose default is " + d[2] + "; Portico's " + d[3]
                        + " is kept (see docs/hardening.md)");
            }
        }
        h.close("}");
        if (!http2Lines.isEmpty()) {
            h.open("http2 {");
            http2Lines.forEach(h::line);
            h.close("}");
        }
    }
}
