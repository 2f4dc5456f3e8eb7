package io.portico.nginx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * nginx {@code upstream} blocks, and the pools {@code proxy_pass host:port} implies. nginx sets proxy timeouts
 * per location and Portico per upstream: locations that reach one pool with different timeouts each get a copy
 * of it ({@code app-2}), whose connections and failure counts are its own.
 */
final class Upstreams {
    /** Timeouts a location asks of its upstream; null = Portico's default. */
    record Timeouts(String connect, String send, String read) {
        static final Timeouts NONE = new Timeouts(null, null, null);
    }

    private record Pool(String name, List<String> serverLines, List<String> settings, List<String> origins) {}

    private final Map<String, Pool> pools = new LinkedHashMap<>();
    private final Map<String, Directive> blocks = new LinkedHashMap<>();
    private final Map<String, Map<Timeouts, String>> copies = new LinkedHashMap<>();
    private final Report report;

    Upstreams(Report report) {
        this.report = report;
    }

    void define(Directive block) {
        report.mapped(block);
        String name = unique(sanitize(block.arg(0)));
        blocks.put(block.arg(0), block);
        List<String> servers = new ArrayList<>();
        List<String> settings = new ArrayList<>();
        for (Directive d : block.block()) {
            switch (d.name()) {
                case "server" -> server(d).ifPresent(servers::add);
                case "keepalive" -> setting(settings, d, "keepalive", d.arg(0), "nginx counts idle connections per"
                        + " worker; Portico per event loop and server");
                case "keepalive_timeout" -> NginxValues.duration(d.arg(0)).ifPresentOrElse(
                        v -> setting(settings, d, "keepalive-timeout", v, null),
                        () -> report.unmapped(d, "not a time"));
                case "least_conn" -> setting(settings, d, "balance", "least-conn", null);
                case "ip_hash" -> setting(settings, d, "balance", "ip-hash", "Portico hashes the whole address;"
                        + " nginx the first three octets of IPv4");
                case "random" -> {
                    if (d.arg(0).equals("two")) {
                        setting(settings, d, "balance", "random-two", null);
                    } else {
                        report.unmapped(d, "Portico has random two only");
                    }
                }
                case "hash" -> hash(settings, d);
                case "zone", "keepalive_requests", "keepalive_time" -> report.note(d, "not needed: Portico keeps"
                        + " upstream state in process and connections until keepalive-timeout");
                default -> { }
            }
        }
        if (servers.isEmpty()) {
            report.unmapped(block, "no server Portico could take");
            return;
        }
        pools.put(block.arg(0), new Pool(name, servers, settings, new ArrayList<>(List.of(block.origin()))));
    }

    private void hash(List<String> settings, Directive d) {
        NginxValues.Translated key = NginxValues.text(d.arg(0));
        boolean known = d.arg(0).equals("$request_uri") || d.arg(0).equals("$remote_addr")
                || d.arg(0).startsWith("$http_") || !d.arg(0).contains("$");
        if (!known) {
            report.unmapped(d, "Portico hashes by $request_uri, $remote_addr, $http_NAME or text");
            return;
        }
        settings.add("balance = \"hash\"  # " + d.origin()
                + (d.args().contains("consistent") ? "" : " (Portico's hash is consistent; nginx's without"
                + " 'consistent' is not)"));
        settings.add("hash-key = " + Hocon.quote(key.ok() ? key.value() : d.arg(0)));
        report.mapped(d);
    }

    private void setting(List<String> settings, Directive d, String key, String value, String note) {
        boolean number = value.matches("\\d+");
        settings.add(key + " = " + (number ? value : Hocon.quote(value)) + "  # " + d.origin()
                + (note == null ? "" : " (" + note + ")"));
        report.mapped(d);
    }

    private Optional<String> server(Directive d) {
        String address = d.arg(0);
        if (!address.startsWith("unix:") && !address.matches(".*:\\d+") ) {
            address = address + ":80";
        }
        List<String> keys = new ArrayList<>();
        keys.add("address = " + Hocon.quote(address));
        for (String a : d.args().subList(1, d.args().size())) {
            String[] kv = a.split("=", 2);
            if (kv.length == 2 && !kv[0].equals("fail_timeout") && !kv[1].matches("\\d{1,9}")) {
                report.unmapped(d, "the parameter " + a + " is not a number (nginx refuses it); the server is left out");
                return Optional.empty();
            }
            switch (kv[0]) {
                case "weight" -> keys.add("weight = " + kv[1]);
                case "max_fails" -> keys.add("max-fails = " + kv[1]);
                case "fail_timeout" -> keys.add("fail-timeout = "
                        + Hocon.quote(NginxValues.duration(kv[1]).orElse(kv[1])));
                case "backup" -> keys.add("backup = true");
                case "down" -> {
                    report.unmapped(d, "Portico has no servers marked down; the server is left out");
                    return Optional.empty();
                }
                default -> {
                    report.unmapped(d, "the parameter " + a + " is not mapped (Portico has weight, max_fails,"
                            + " fail_timeout, backup); the server is kept without it");
                }
            }
        }
        if (!report.isHandled(d)) {
            report.mapped(d);
        }
        return Optional.of("{ " + String.join(", ", keys) + " }  # " + d.origin());
    }

    /** {@code base}, or base-N when another pool (or a copy) already has that name. */
    private String unique(String base) {
        String name = base;
        for (int n = 2; taken(name); n++) {
            name = base + "-" + n;
        }
        return name;
    }

    private boolean taken(String name) {
        return pools.values().stream().anyMatch(p -> p.name().equals(name))
                || copies.values().stream().anyMatch(m -> m.containsValue(name));
    }

    boolean isBlock(String name) {
        return pools.containsKey(name);
    }

    /** The Portico upstream a location reaching {@code target} (an upstream name or host:port) uses. */
    String use(String target, Timeouts timeouts, Directive from) {
        if (!pools.containsKey(target)) {
            // "uwsgi://..." and "fastcgi://..." targets name their protocol; a plain one is HTTP, port 80 by default
            String address = target.contains("://") || target.startsWith("unix:") || target.matches(".*:\\d+")
                    ? target : target + ":80";
            pools.put(target, new Pool(unique(sanitize(target.replaceFirst("^([a-z]+)://", "$1-"))), List.of("{ address = " + Hocon.quote(address) + " }"),
                    List.of(), new ArrayList<>(List.of(from.origin() + " (an upstream of its own)"))));
        }
        Pool base = pools.get(target);
        Map<Timeouts, String> byTimeouts = copies.computeIfAbsent(target, k -> new LinkedHashMap<>());
        String name = byTimeouts.get(timeouts);
        if (name == null) {
            name = byTimeouts.isEmpty() ? base.name() : unique(base.name() + "-" + (byTimeouts.size() + 1));
            byTimeouts.put(timeouts, name);
        }
        return name;
    }

    void write(Hocon h) {
        for (Map.Entry<String, Directive> b : blocks.entrySet()) {
            if (!copies.containsKey(b.getKey())) {
                report.note(b.getValue(), "no location proxies to this upstream; it is written anyway");
            }
        }
        h.open("upstreams {");
        for (Map.Entry<String, Pool> e : pools.entrySet()) {
            Pool p = e.getValue();
            Map<Timeouts, String> names = copies.getOrDefault(e.getKey(), Map.of(Timeouts.NONE, p.name()));
            for (Map.Entry<Timeouts, String> c : names.entrySet()) {
                p.origins().forEach(h::comment);
                if (!c.getValue().equals(p.name())) {
                    h.comment("a copy of " + p.name() + " for the timeouts of other locations (Portico sets"
                            + " timeouts per upstream); it keeps its own connections and failure counts");
                }
                h.open(Hocon.key(c.getValue()) + " {");
                h.open("servers = [");
                p.serverLines().forEach(h::line);
                h.close("]");
                p.settings().forEach(h::line);
                Timeouts t = c.getKey();
                if (t.connect() != null) {
                    h.value("connect-timeout", Hocon.quote(t.connect()), null);
                }
                if (t.send() != null) {
                    h.value("send-timeout", Hocon.quote(t.send()), null);
                }
                if (t.read() != null) {
                    h.value("read-timeout", Hocon.quote(t.read()), null);
                }
                h.close("}");
            }
        }
        h.close("}");
    }

    boolean isEmpty() {
        return pools.isEmpty();
    }

    static String sanitize(String name) {
        String s = name.replaceAll("[^A-Za-z0-9_-]", "-");
        return !s.isEmpty() && Character.isLetter(s.charAt(0)) ? s : "u" + s;
    }

    static boolean same(Timeouts a, Timeouts b) {
        return Objects.equals(a, b);
    }
}
