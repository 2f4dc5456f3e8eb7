package io.portico.nginx;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code listen}: every address of the servers Portico keeps, once; TLS where a server's listen there says
 * {@code ssl} (or the old {@code ssl on}), with the certificates of every such server (the default server's
 * first: SNI chooses among them by their names). {@code 0.0.0.0:P} with {@code [::]:P} is {@code *:P} where the
 * same servers listen on both with the same default server (a default host's {@code listen} names it). Each says
 * {@code http2} as nginx does there: on where nginx speaks HTTP/2, and {@code off} on a TLS listener where nginx
 * does not (Portico's {@code auto} would). A {@code listen ... proxy_protocol} makes the listener's
 * {@code proxy-protocol = true}, trusting {@code set_real_ip_from}'s addresses (nginx takes the header from any peer;
 * Portico needs them named, so without set_real_ip_from every address is written, and reported).
 */
final class Listeners {
    private final Report report;
    private final Path confDir;
    private final Map<String, Address> byAddress = new LinkedHashMap<>();
    private final Map<String, Address> byNginxAddress = new LinkedHashMap<>();
    /** set_real_ip_from's CIDRs: the trusted of a PROXY protocol listener. */
    private final List<String> proxyTrusted;

    Listeners(Report report, Path confDir, Layout layout, List<String> proxyTrusted) {
        this.report = report;
        this.confDir = confDir;
        this.proxyTrusted = proxyTrusted;
        plan(layout);
    }

    private static final class Address {
        String address;
        final List<Servers.Server> servers = new ArrayList<>();
        final List<Servers.Server> tlsServers = new ArrayList<>();
        final List<Directive> sources = new ArrayList<>();
        /** nginx's default server here: its http2 decides for a plain listener (and for TLS, SNI's server). */
        Servers.Server nginxDefault;
        Directive http2Listen;
        /** A listen here with proxy_protocol (nginx's is the socket's, as http2). */
        Directive proxyListen;
    }

    /** The listeners of these nginx addresses, as written in {@code listen} (a host's {@code listen}). */
    List<String> written(Collection<String> addresses) {
        List<String> out = new ArrayList<>();
        for (String nginxAddress : addresses) {
            String a = byNginxAddress.get(nginxAddress).address;
            if (!out.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    private void plan(Layout layout) {
        for (Servers.Server s : layout.kept()) {
            boolean sslOn = s.scope().find("ssl").map(d -> {
                report.mapped(d);
                return d.arg(0).equals("on");
            }).orElse(false);
            for (Servers.Listen l : s.listens()) {
                Address a = byAddress.computeIfAbsent(l.address(), k -> new Address());
                a.address = l.address();
                a.sources.add(l.source());
                a.nginxDefault = layout.addressDefaults().get(l.address());
                if (!a.servers.contains(s)) {
                    a.servers.add(s);
                }
                if (l.http2() && a.http2Listen == null) {
                    a.http2Listen = l.source();
                }
                if (l.proxyProtocol() && a.proxyListen == null) {
                    a.proxyListen = l.source();
                }
                if ((l.ssl() || sslOn) && !a.tlsServers.contains(s)) {
                    if (s == layout.defaultServer() || l.defaultServer()) {
                        a.tlsServers.add(0, s);
                    } else {
                        a.tlsServers.add(s);
                    }
                }
            }
        }
        byNginxAddress.putAll(byAddress);
        mergeWildcards(byAddress);
    }

    void write(Hocon h) {
        if (byAddress.isEmpty()) {
            return;
        }
        h.open("listen = [");
        for (Address a : byAddress.values()) {
            String origin = a.sources.get(0).origin() + (a.sources.size() > 1 ? " and " + (a.sources.size() - 1)
                    + " more" : "");
            Http2 http2 = http2(a);
            String proxy = proxyProtocol(a);
            if (a.tlsServers.isEmpty()) {
                if (!proxy.isEmpty()) {
                    h.comment(origin);
                    h.line("{ address = " + Hocon.quote(a.address) + proxy + (http2.on() ? ", http2 = on" : "")
                            + " }  # " + a.proxyListen.origin());
                } else if (http2.on()) {
                    h.comment(origin);
                    h.line("{ address = " + Hocon.quote(a.address) + ", http2 = on }  # " + http2.why()
                            + "; h2c with prior knowledge, and HTTP/1.1 on the same port as nginx 1.25.1+");
                } else {
                    h.line(Hocon.quote(a.address) + "  # " + origin);
                }
                continue;
            }
            h.comment(origin);
            h.open("{");
            h.line("address = " + Hocon.quote(a.address) + proxy);
            h.open("tls {");
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
            h.close("}");
            h.line(http2.on() ? "http2 = on  # " + http2.why() + " (HTTP/2 through ALPN)"
                    : "http2 = off  # " + http2.why() + ": nginx serves HTTP/1.1 only here");
            h.close("}");
        }
        h.close("]");
    }

    /**
     * {@code ", proxy-protocol = true, trusted = [...]"} where a listen here says proxy_protocol, else "". nginx also
     * keeps $remote_addr the balancer's unless real_ip_header proxy_protocol; Portico always takes the header's.
     */
    private String proxyProtocol(Address a) {
        if (a.proxyListen == null) {
            return "";
        }
        List<String> trusted = proxyTrusted;
        if (trusted.isEmpty()) {
            trusted = List.of("0.0.0.0/0", "::/0");
            report.note(a.proxyListen, "nginx takes a PROXY header from any peer, and so does this listener"
                    + " (trusted = every address): name the balancers with set_real_ip_from, or in trusted");
        } else {
            report.note(a.proxyListen, "the PROXY header is taken from set_real_ip_from's addresses only (trusted),"
                    + " and its client is the client, as with real_ip_header proxy_protocol");
        }
        return ", proxy-protocol = true, trusted = " + Hocon.strings(trusted);
    }

    private record Http2(boolean on, String why) {}

    /**
     * nginx's HTTP/2 on one address: the http2 parameter of any listen there (it is the socket's), else the
     * {@code http2} directive (1.25.1+) of the server that decides: for a plain address its default server, for
     * TLS the server SNI chooses. Portico's is the listener's: servers there that say otherwise are reported.
     */
    private Http2 http2(Address a) {
        if (a.http2Listen != null) {
            a.servers.forEach(s -> s.scope().find("http2").ifPresent(report::mapped));
            return new Http2(true, a.http2Listen.origin());
        }
        Servers.Server decides = a.servers.contains(a.nginxDefault) ? a.nginxDefault
                : a.tlsServers.isEmpty() ? a.servers.get(0) : a.tlsServers.get(0);
        Optional<Directive> d = decides.scope().find("http2");
        boolean on = d.map(x -> x.arg(0).equals("on")).orElse(false);
        for (Servers.Server s : a.servers) {
            Optional<Directive> other = s.scope().find("http2");
            boolean otherOn = other.map(x -> x.arg(0).equals("on")).orElse(false);
            if (otherOn == on) {
                other.ifPresent(report::mapped);
            } else if (!a.tlsServers.isEmpty()) {
                Directive where = other.orElse(s.block());
                report.unmapped(where, "HTTP/2 " + (otherOn ? "on" : "off") + " for this server only: Portico's"
                        + " http2 is the listener's (" + a.address + " speaks " + (on ? "HTTP/2" : "HTTP/1.1 only")
                        + " for every host, as the server at " + decides.block().source() + ")");
            } else {
                // On a plain address nginx takes the default server's http2 for every connection, as Portico.
                other.ifPresent(x -> report.note(x, "nginx follows the default server's http2 on " + a.address
                        + ", as Portico"));
            }
        }
        return new Http2(on, d.map(Directive::origin).orElse("no http2 in nginx on " + a.address));
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
            if (v6 != null && v6.tlsServers.equals(v4.tlsServers) && v6.servers.equals(v4.servers)
                    && (v6.http2Listen == null) == (v4.http2Listen == null) && v6.nginxDefault == v4.nginxDefault
                    && (v6.proxyListen == null) == (v4.proxyListen == null)) {
                v4.address = "*:" + port;
                v6.address = v4.address;
                v4.sources.addAll(v6.sources);
                byAddress.remove("[::]:" + port);
            }
        }
    }
}
