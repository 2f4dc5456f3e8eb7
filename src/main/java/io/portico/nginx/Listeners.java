package io.portico.nginx;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code listen}: every address of the servers Portico keeps, once; TLS where a server's listen there says
 * {@code ssl} (or the old {@code ssl on}), with the certificates of every such server (the default server's
 * first: SNI chooses among them by their names). {@code 0.0.0.0:P} with {@code [::]:P} is {@code *:P}.
 */
final class Listeners {
    private final Report report;
    private final Path confDir;

    Listeners(Report report, Path confDir) {
        this.report = report;
        this.confDir = confDir;
    }

    private static final class Address {
        String address;
        final List<Servers.Server> tlsServers = new ArrayList<>();
        final List<Directive> sources = new ArrayList<>();
    }

    void write(NginxImport.Layout layout, Hocon h) {
        Map<String, Address> byAddress = new LinkedHashMap<>();
        for (Servers.Server s : layout.kept()) {
            boolean sslOn = s.scope().find("ssl").map(d -> {
                report.mapped(d);
                return d.arg(0).equals("on");
            }).orElse(false);
            for (Servers.Listen l : s.listens()) {
                Address a = byAddress.computeIfAbsent(l.address(), k -> new Address());
                a.address = l.address();
                a.sources.add(l.source());
                if ((l.ssl() || sslOn) && !a.tlsServers.contains(s)) {
                    if (s == layout.defaultServer() || l.defaultServer()) {
                        a.tlsServers.add(0, s);
                    } else {
                        a.tlsServers.add(s);
                    }
                }
            }
        }
        mergeWildcards(byAddress);
        if (byAddress.isEmpty()) {
            return;
        }
        h.open("listen = [");
        for (Address a : byAddress.values()) {
            String origin = a.sources.get(0).origin() + (a.sources.size() > 1 ? " and " + (a.sources.size() - 1)
                    + " more" : "");
            if (a.tlsServers.isEmpty()) {
                h.line(Hocon.quote(a.address) + "  # " + origin);
                continue;
            }
            h.comment(origin);
            h.open("{ address = " + Hocon.quote(a.address) + ", tls {");
            h.open("certificates = [");
            for (Servers.Server s : a.tlsServers) {
                certificates(s, h);
            }
            h.close("]");
            Servers.Server first = a.tlsServers.get(0);
            first.scope().find("ssl_protocols").ifPresent(p -> protocols(p, h));
            first.scope().find("ssl_session_timeout").ifPresent(t -> NginxValues.duration(t.arg(0))
                    .ifPresent(v -> {
                        report.mapped(t);
                        h.value("session-timeout", Hocon.quote(v), t.origin());
                    }));
            h.close("} }");
        }
        h.close("]");
    }

    private void certificates(Servers.Server s, Hocon h) {
        List<Directive> certs = s.scope().group("ssl_certificate");
        List<Directive> keys = s.scope().group("ssl_certificate_key");
        if (certs.isEmpty()) {
            report.unmapped(s.block(), "listen ... ssl without ssl_certificate (nginx refuses to start)");
            return;
        }
        for (int i = 0; i < certs.size(); i++) {
            Directive c = certs.get(i);
            Optional<Directive> k = i < keys.size() ? Optional.of(keys.get(i)) : Optional.empty();
            if (k.isEmpty()) {
                report.unmapped(c, "no ssl_certificate_key for it");
                continue;
            }
            if (c.arg(0).contains("$") || c.arg(0).startsWith("data:")) {
                report.unmapped(c, "Portico reads certificates from files named in the configuration");
                continue;
            }
            report.mapped(c);
            report.mapped(k.get());
            h.line("{ cert = " + Hocon.quote(path(c.arg(0))) + ", key = " + Hocon.quote(path(k.get().arg(0)))
                    + " }  # " + c.source() + ", " + k.get().source());
        }
    }

    /** nginx reads a relative certificate path against its conf folder; written absolute so Portico reads the same. */
    private String path(String p) {
        Path file = Path.of(p);
        return file.isAbsolute() ? p : confDir.resolve(file).normalize().toString();
    }

    private void protocols(Directive p, Hocon h) {
        List<String> kept = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        for (String v : p.args()) {
            (v.equals("TLSv1.2") || v.equals("TLSv1.3") ? kept : dropped).add(v);
        }
        if (kept.isEmpty()) {
            report.unmapped(p, "Portico offers TLSv1.2 and TLSv1.3 only; its default (both) is used");
            return;
        }
        report.mapped(p);
        if (!dropped.isEmpty()) {
            report.note(p, String.join(", ", dropped) + " left out: Portico refuses them as insecure");
        }
        h.value("protocols", Hocon.strings(kept), p.origin());
    }

    private static void mergeWildcards(Map<String, Address> byAddress) {
        for (String key : List.copyOf(byAddress.keySet())) {
            if (!key.startsWith("0.0.0.0:")) {
                continue;
            }
            String port = key.substring("0.0.0.0:".length());
            Address v4 = byAddress.get(key);
            Address v6 = byAddress.get("[::]:" + port);
            if (v6 != null && v6.tlsServers.equals(v4.tlsServers)) {
                v4.address = "*:" + port;
                v4.sources.addAll(v6.sources);
                byAddress.remove("[::]:" + port);
            }
        }
    }
}
