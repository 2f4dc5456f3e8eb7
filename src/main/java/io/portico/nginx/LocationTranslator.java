package io.portico.nginx;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Translates one {@link FlatLocation} into the keys of a Portico location: its match, its target (return,
 * proxy, or static files) and the options it inherits. Directives nginx does not inherit (alias, proxy_pass,
 * return) are read at the location's own level; the rest from the nearest level that has them. This class is
 * long because it is the directive-by-directive table of what a location becomes; each method is one target.
 */
final class LocationTranslator {
    private final Report report;
    private final Upstreams upstreams;
    private final Zones zones;
    private final long globalBodySize;

    LocationTranslator(Report report, Upstreams upstreams, Zones zones, long globalBodySize) {
        this.report = report;
        this.upstreams = upstreams;
        this.zones = zones;
        this.globalBodySize = globalBodySize;
    }

    /** The location's keys, one "key = value  # origin" line each, or empty when it cannot be written at all. */
    Optional<List<String>> translate(FlatLocation loc, Map<String, Scope> named) {
        List<String> keys = new ArrayList<>();
        keys.add(switch (loc.kind()) {
            case EXACT -> "exact = " + Hocon.quote(loc.value());
            case REGEX -> "regex = " + Hocon.quote(loc.value());
            case PREFIX -> "path = " + Hocon.quote(loc.value());
        });
        Scope s = loc.scope();
        boolean ok;
        if (s.here("return").isPresent()) {
            ok = ret(s.here("return").get(), keys);
            for (Directive a : s.group("add_header")) {
                report.unmapped(a, "Portico sets response headers on proxy locations only");
            }
        } else if (s.here("proxy_pass").isPresent()) {
            ok = proxy(loc, s.here("proxy_pass").get(), keys);
        } else if (s.here("uwsgi_pass").isPresent()) {
            ok = uwsgi(loc, s.here("uwsgi_pass").get(), keys);
        } else if (s.here("fastcgi_pass").isPresent()) {
            ok = fastcgi(loc, s.here("fastcgi_pass").get(), keys);
        } else {
            ok = statics(loc, named, keys);
        }
        if (!ok) {
            return Optional.empty();
        }
        common(s, keys);
        return Optional.of(keys);
    }

    private boolean ret(Directive d, List<String> keys) {
        report.mapped(d);
        String first = d.arg(0);
        if (first.isEmpty() || (first.matches("\\d+") && !first.matches("[1-5]\\d\\d"))) {
            report.unmapped(d, "not a status nginx returns");
            return false;
        }
        int status;
        String rest;
        if (first.matches("\\d{3}")) {
            status = Integer.parseInt(first);
            rest = d.args().size() > 1 ? d.arg(1) : null;
        } else {
            status = 302;
            rest = first;
        }
        if (status == 444) {
            report.unmapped(d, "nginx's 444 closes the connection without a response; Portico always answers");
            return false;
        }
        if (rest == null) {
            keys.add("return = " + status + "  # " + d.origin());
            return true;
        }
        NginxValues.Translated text = NginxValues.text(rest);
        if (!text.ok()) {
            report.unmapped(d, text.whyNot());
            return false;
        }
        boolean redirect = status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
        keys.add("return = { status = " + status + ", " + (redirect ? "location" : "body") + " = "
                + Hocon.quote(text.value()) + " }  # " + d.origin());
        return true;
    }

    private boolean proxy(FlatLocation loc, Directive d, List<String> keys) {
        String target = d.arg(0);
        if (target.startsWith("https://")) {
            report.unmapped(d, "TLS to upstreams is not supported yet; the location " + loc.value() + " is left out");
            return false;
        }
        if (!target.startsWith("http://") || target.contains("$")) {
            report.unmapped(d, "Portico proxies to http://NAME[/uri] without variables; the location "
                    + loc.value() + " is left out");
            return false;
        }
        String hostAndUri = target.substring("http://".length());
        int slash = hostAndUri.indexOf('/');
        String host = slash < 0 ? hostAndUri : hostAndUri.substring(0, slash);
        String uri = slash < 0 ? null : hostAndUri.substring(slash);
        if (host.isEmpty() || host.startsWith("unix:")) {
            report.unmapped(d, "proxy_pass names no host Portico can reach (write a unix socket as an upstream"
                    + " server); the location " + loc.value() + " is left out");
            return false;
        }
        if (uri != null && loc.kind() != FlatLocation.Kind.PREFIX) {
            report.unmapped(d, "a URI in proxy_pass replaces a prefix; this location is not one (nginx refuses it"
                    + " in a regex location); the location " + loc.value() + " is left out");
            return false;
        }
        String name = upstreams.use(host, timeouts(loc.scope()), d);
        report.mapped(d);
        keys.add("proxy = " + Hocon.quote(uri == null ? name : "http://" + name + uri) + "  # " + d.origin());
        proxyOptions(loc.scope(), keys, "upstream");
        return true;
    }

    private boolean uwsgi(FlatLocation loc, Directive d, List<String> keys) {
        if (!cgiUpstream(loc, d, "uwsgi", keys)) {
            return false;
        }
        params(loc.scope(), "uwsgi_param", keys);
        // uwsgi_params hands the app the client's Host (HTTP_HOST), as Portico's host = client does.
        proxyOptions(loc.scope(), keys, "client");
        return true;
    }

    /**
     * {@code uwsgi_pass} / {@code fastcgi_pass ADDRESS}: {@code proxy} to an upstream of {@code PROTOCOL://ADDRESS}
     * servers, with the directive family's connect, send and read timeouts; false (reported) for an upstream block
     * or a variable, whose servers Portico would need to see as that protocol's.
     */
    private boolean cgiUpstream(FlatLocation loc, Directive d, String protocol, List<String> keys) {
        String target = d.arg(0).replaceFirst("^" + protocol + "://", "");
        if (target.contains("$") || upstreams.isBlock(target)) {
            report.unmapped(d, d.name() + " to an upstream block or a variable: write the block's servers as "
                    + protocol + "://HOST:PORT in a Portico upstream; the location " + loc.value() + " is left out");
            return false;
        }
        Scope s = loc.scope();
        String name = upstreams.use(protocol + "://" + target, new Upstreams.Timeouts(
                time(s, protocol + "_connect_timeout"), time(s, protocol + "_send_timeout"),
                time(s, protocol + "_read_timeout")), d);
        report.mapped(d);
        keys.add("proxy = " + Hocon.quote(name) + "  # " + d.origin() + " (" + protocol + ")");
        return true;
    }

    /**
     * fastcgi_pass ADDRESS: an upstream of fastcgi:// servers. SCRIPT_FILENAME becomes {@code fastcgi-root} when it is
     * nginx's usual {@code $document_root$fastcgi_script_name} over a {@code root}; other fastcgi_param with values
     * Portico can express go to {@code params}.
     */
    private boolean fastcgi(FlatLocation loc, Directive d, List<String> keys) {
        if (!cgiUpstream(loc, d, "fastcgi", keys)) {
            return false;
        }
        Scope s = loc.scope();
        Optional<Directive> root = s.find("root");
        for (Directive p : s.group("fastcgi_param")) {
            if (p.arg(0).equals("SCRIPT_FILENAME") && p.args().size() > 1
                    && p.arg(1).equals("$document_root$fastcgi_script_name") && root.isPresent()) {
                report.mapped(p);
                keys.add("fastcgi-root = " + Hocon.quote(root.get().arg(0)) + "  # " + p.origin());
            }
        }
        s.find("fastcgi_index").ifPresent(i -> {
            report.mapped(i);
            keys.add("fastcgi-index = " + Hocon.quote(i.arg(0)) + "  # " + i.origin());
        });
        params(s, "fastcgi_param", keys);
        proxyOptions(s, keys, "client");
        return true;
    }

    /** uwsgi_param / fastcgi_param NAME VALUE as the location's {@code params}; SCRIPT_FILENAME is fastcgi-root's. */
    private void params(Scope s, String directive, List<String> keys) {
        List<String> entries = new ArrayList<>();
        for (Directive p : s.group(directive)) {
            if (p.arg(0).equals("SCRIPT_FILENAME") && directive.equals("fastcgi_param")) {
                if (!keys.stream().anyMatch(k -> k.startsWith("fastcgi-root"))) {
                    report.unmapped(p, "SCRIPT_FILENAME is fastcgi-root (a root) and the script's path; this value"
                            + " is not $document_root$fastcgi_script_name over a root");
                }
                continue;
            }
            if (p.args().size() < 2) {
                report.unmapped(p, "a parameter without a value");
                continue;
            }
            NginxValues.Translated value = NginxValues.text(p.arg(1));
            if (!value.ok()) {
                report.unmapped(p, value.whyNot());
                continue;
            }
            report.mapped(p);
            entries.add(Hocon.key(p.arg(0)) + " = " + Hocon.quote(value.value()));
        }
        if (!entries.isEmpty()) {
            keys.add("params = { " + String.join(", ", entries) + " }");
        }
    }

    private Upstreams.Timeouts timeouts(Scope s) {
        return new Upstreams.Timeouts(time(s, "proxy_connect_timeout"), time(s, "proxy_send_timeout"),
                time(s, "proxy_read_timeout"));
    }

    private String time(Scope s, String name) {
        Optional<Directive> d = s.find(name);
        if (d.isEmpty()) {
            return null;
        }
        Optional<String> v = NginxValues.duration(d.get().arg(0));
        if (v.isEmpty()) {
            report.unmapped(d.get(), "not a time");
            return null;
        }
        report.mapped(d.get());
        return v.get();
    }

    private void proxyOptions(Scope s, List<String> keys, String defaultHost) {
        List<String> forwarded = new ArrayList<>();
        Map<String, String> request = new LinkedHashMap<>();
        String host = null;
        for (Directive h : s.group("proxy_set_header")) {
            String name = h.arg(0);
            String value = h.arg(1);
            String lower = name.toLowerCase();
            if (lower.equals("host")) {
                if (value.equals("$host") || value.equals("$http_host")) {
                    host = "client";
                    report.mapped(h);
                } else if (value.equals("$proxy_host")) {
                    host = "upstream";
                    report.mapped(h);
                } else {
                    report.unmapped(h, "Portico sends the client's Host or the upstream's host:port only");
                }
            } else if (lower.equals("x-forwarded-for") && value.equals("$proxy_add_x_forwarded_for")) {
                forwarded.add("X-Forwarded-For");
                report.mapped(h);
            } else if (lower.equals("x-real-ip") && value.equals("$remote_addr")) {
                forwarded.add("X-Real-IP");
                report.mapped(h);
            } else if (lower.equals("x-forwarded-proto") && value.equals("$scheme")) {
                forwarded.add("X-Forwarded-Proto");
                report.mapped(h);
            } else if (lower.equals("x-forwarded-host") && (value.equals("$host") || value.equals("$http_host"))) {
                forwarded.add("X-Forwarded-Host");
                report.mapped(h);
            } else if (lower.equals("connection") || lower.equals("upgrade")) {
                report.note(h, "not needed: Portico keeps upstream connections alive and relays WebSocket"
                        + " upgrades itself");
            } else {
                NginxValues.Translated t = NginxValues.text(value);
                if (t.ok()) {
                    request.put(name, t.value());
                    report.mapped(h);
                } else {
                    report.unmapped(h, t.whyNot());
                }
            }
        }
        keys.add("host = " + Hocon.quote(host == null ? defaultHost : host)
                + (host == null && defaultHost.equals("upstream")
                        ? "  # nginx sends $proxy_host unless proxy_set_header Host is set" : ""));
        keys.add("forwarded-headers = " + Hocon.strings(forwarded)
                + (forwarded.isEmpty() ? "  # nginx sets none unless told" : ""));
        if (!request.isEmpty()) {
            keys.add("set-request-headers { " + headers(request) + " }");
        }
        Map<String, String> response = new LinkedHashMap<>();
        for (Directive a : s.group("add_header")) {
            NginxValues.Translated t = NginxValues.text(a.arg(1));
            if (!t.ok()) {
                report.unmapped(a, t.whyNot());
                continue;
            }
            response.put(a.arg(0), t.value());
            report.mapped(a);
            if (!a.args().contains("always")) {
                report.note(a, "Portico sets it on every response; nginx only on 2xx and 3xx without 'always'");
            }
        }
        if (!response.isEmpty()) {
            keys.add("set-response-headers { " + headers(response) + " }");
        }
        s.find("proxy_buffering").ifPresent(d -> onOff(d, "proxy-response-buffering", keys));
        s.find("proxy_request_buffering").ifPresent(d -> onOff(d, "proxy-request-buffering", keys));
        s.find("proxy_ignore_client_abort").ifPresent(d -> onOff(d, "ignore-client-abort", keys));
        s.find("client_body_buffer_size").ifPresent(d -> sizeKey(d, "client-body-buffer-size", keys));
        s.find("proxy_http_version").ifPresent(report::mapped);
        s.find("expires").filter(e -> !e.arg(0).equals("off")).ifPresent(e -> report.unmapped(e,
                "Portico's expires is for static files; nginx also sets it on proxied responses"));
    }

    private static String headers(Map<String, String> h) {
        List<String> out = new ArrayList<>();
        h.forEach((k, v) -> out.add(Hocon.quote(k) + " = " + Hocon.quote(v)));
        return String.join(", ", out);
    }

    private void onOff(Directive d, String key, List<String> keys) {
        report.mapped(d);
        keys.add(key + " = " + d.arg(0).equals("on") + "  # " + d.origin());
    }

    private void sizeKey(Directive d, String key, List<String> keys) {
        Optional<String> v = NginxValues.size(d.arg(0));
        if (v.isEmpty()) {
            report.unmapped(d, "not a size");
            return;
        }
        report.mapped(d);
        keys.add(key + " = " + Hocon.quote(v.get()) + "  # " + d.origin());
    }

    private boolean statics(FlatLocation loc, Map<String, Scope> named, List<String> keys) {
        Scope s = loc.scope();
        Optional<Directive> alias = s.here("alias");
        if (alias.isPresent()) {
            Directive a = alias.get();
            if (loc.kind() != FlatLocation.Kind.PREFIX) {
                report.unmapped(a, "Portico's alias replaces a prefix with a directory; in an exact or regex"
                        + " location nginx's alias names a file or uses captures; the location " + loc.value()
                        + " is left out");
                return false;
            }
            if (loc.value().endsWith("/") != a.arg(0).endsWith("/")) {
                report.note(a, "nginx joins alias and the rest of the URI as text; Portico as paths");
            }
            report.mapped(a);
            keys.add("alias = " + Hocon.quote(a.arg(0)) + "  # " + a.origin());
        } else {
            Optional<Directive> root = s.find("root");
            String dir = root.map(r -> r.arg(0)).orElse("html");
            root.ifPresentOrElse(report::mapped, () -> report.note(loc.source().source(), loc.source().summary(),
                    "no root: nginx's default html, relative to its prefix"));
            if (!Path.of(dir).isAbsolute()) {
                root.ifPresent(r -> report.note(r, "a relative root resolves against nginx's prefix; Portico"
                        + " resolves it against its own (--prefix)"));
            }
            keys.add("root = " + Hocon.quote(dir) + root.map(r -> "  # " + r.origin()).orElse(""));
        }
        s.find("index").ifPresent(d -> {
            report.mapped(d);
            keys.add("index = " + Hocon.strings(d.args()) + "  # " + d.origin());
        });
        s.find("try_files").ifPresent(d -> tryFiles(d, named, keys));
        s.find("autoindex").ifPresent(d -> onOff(d, "autoindex", keys));
        s.find("expires").ifPresent(d -> expires(d, keys));
        Optional<Directive> gz = s.find("gzip_static");
        gz.ifPresent(report::mapped);
        keys.add("precompressed = " + gz.map(d -> d.arg(0).equals("on")).orElse(false)
                + gz.map(d -> "  # " + d.origin()).orElse("  # nginx serves .gz files only with gzip_static on"));
        for (Directive a : s.group("add_header")) {
            report.unmapped(a, "Portico sets response headers on proxy locations only");
        }
        return true;
    }

    private void tryFiles(Directive d, Map<String, Scope> named, List<String> keys) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < d.args().size(); i++) {
            String t = d.arg(i);
            boolean last = i == d.args().size() - 1;
            if (last && t.startsWith("@")) {
                Scope n = named.get(t.substring(1));
                Optional<Directive> pp = n == null ? Optional.empty() : n.here("proxy_pass");
                if (pp.isEmpty() || !pp.get().arg(0).startsWith("http://")
                        || pp.get().arg(0).substring(7).contains("/") || pp.get().arg(0).length() == 7
                        || pp.get().arg(0).contains("$")) {
                    report.unmapped(d, "Portico's try-files falls back to an upstream only: " + t
                            + " must be a location with just proxy_pass http://NAME; the fallback is left out");
                    keys.add("try-files = " + Hocon.strings(out) + "  # " + d.origin());
                    return;
                }
                String name = upstreams.use(pp.get().arg(0).substring(7), timeouts(n), pp.get());
                report.mapped(pp.get());
                report.note(pp.get(), "the named location's other directives do not apply to the try-files"
                        + " fallback; Portico proxies it with the location's own settings");
                out.add("@" + name);
            } else if (last && t.matches("=\\d{3}")) {
                out.add(t);
            } else if (t.equals("$uri") || t.startsWith("$uri/") || (t.startsWith("/") && !t.contains("$"))) {
                out.add(t);
            } else {
                report.unmapped(d, "Portico's try-files takes $uri, $uri/..., /path, a last =CODE or @upstream; "
                        + t + " is left out");
                continue;
            }
        }
        if (!report.isHandled(d)) {
            report.mapped(d);
        }
        keys.add("try-files = " + Hocon.strings(out) + "  # " + d.origin());
    }

    private void expires(Directive d, List<String> keys) {
        String v = d.arg(0);
        if (v.equals("off")) {
            report.mapped(d);
            return;
        }
        Optional<String> duration = v.equals("max") ? Optional.of("3650d") : NginxValues.duration(v);
        if (duration.isEmpty() || d.args().size() > 1) {
            report.unmapped(d, "Portico's expires is a duration from now (nginx's epoch, negative, @time and"
                    + " modified are not)");
            return;
        }
        report.mapped(d);
        keys.add("expires = " + Hocon.quote(duration.get()) + "  # " + d.origin());
    }

    private void common(Scope s, List<String> keys) {
        List<String> rate = new ArrayList<>();
        for (Directive d : s.group("limit_req")) {
            zones.useRate(d, s).ifPresent(rate::add);
        }
        if (!rate.isEmpty()) {
            keys.add("rate-limit = " + Hocon.strings(rate));
        }
        List<String> conn = new ArrayList<>();
        for (Directive d : s.group("limit_conn")) {
            zones.useConn(d, s).ifPresent(conn::add);
        }
        if (!conn.isEmpty()) {
            keys.add("limit-conn = " + Hocon.strings(conn));
        }
        List<Directive> rules = s.group("allow", "deny");
        if (!rules.isEmpty()) {
            AccessRules.Lists lists = AccessRules.of(rules);
            if (lists.whyNot() != null) {
                rules.forEach(r -> report.unmapped(r, lists.whyNot() + "; this location's rules are left out"));
            } else {
                rules.forEach(report::mapped);
                if (!lists.allow().isEmpty()) {
                    keys.add("allow = " + Hocon.strings(lists.allow()) + "  # " + rules.get(0).source());
                }
                if (!lists.deny().isEmpty()) {
                    keys.add("deny = " + Hocon.strings(lists.deny()) + "  # " + rules.get(0).source());
                }
            }
        }
        s.find("client_max_body_size").ifPresent(d -> {
            long bytes = NginxValues.bytes(d.arg(0));
            if (bytes < 0) {
                report.unmapped(d, "not a size");
                return;
            }
            report.mapped(d);
            if (bytes != globalBodySize) {
                keys.add("max-body-size = " + Hocon.quote(bytes == 0 ? "1024g" : NginxValues.size(d.arg(0)).get())
                        + "  # " + d.origin() + (bytes == 0 ? " (0: no limit in nginx)" : ""));
            }
        });
    }
}
