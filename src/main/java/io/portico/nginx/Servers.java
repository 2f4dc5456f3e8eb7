package io.portico.nginx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An nginx {@code server} block as Portico needs it: the addresses it listens on (with ssl), its names, its
 * locations flattened, and its named locations for try_files.
 */
final class Servers {
    /** One listen address of a server; {@code http2} is its (pre-1.25.1) http2 parameter. */
    record Listen(String address, boolean ssl, boolean defaultServer, boolean http2, boolean proxyProtocol,
            Directive source) {}

    /** A server block read. */
    record Server(Directive block, Scope scope, List<Listen> listens, List<String> names,
            List<FlatLocation> locations, Map<String, Scope> named, boolean defaultServer) {

        boolean returnsOnly() {
            return scope.here("return").isPresent();
        }
    }

    private final Report report;

    Servers(Report report) {
        this.report = report;
    }

    Server read(Directive block, Scope http) {
        report.mapped(block);
        Scope scope = http.inner(block.block());
        List<Listen> listens = new ArrayList<>();
        for (Directive d : block.block()) {
            if (d.name().equals("listen")) {
                listen(d).ifPresent(listens::add);
            }
        }
        if (listens.isEmpty() && block.block().stream().noneMatch(d -> d.name().equals("listen"))) {
            report.note(block.source(), "server { ... }", "no listen: nginx's default *:80");
            listens.add(new Listen("0.0.0.0:80", false, false, false, false, block));
        }
        List<String> names = new ArrayList<>();
        for (Directive d : block.block()) {
            if (d.name().equals("server_name")) {
                names(d, names);
            }
        }
        List<FlatLocation> locations = new ArrayList<>();
        Map<String, Scope> named = new LinkedHashMap<>();
        if (scope.here("return").isPresent()) {
            locations.add(new FlatLocation(FlatLocation.Kind.PREFIX, "/", scope, block, 0, false));
            block.block().stream().filter(d -> d.name().equals("location")).forEach(l -> report.note(l,
                    "never reached: the server's own return answers every request first"));
        } else {
            flatten(block.block(), scope, null, 0, locations, named);
            boolean coversRoot = locations.stream().anyMatch(l -> l.kind() == FlatLocation.Kind.PREFIX
                    && l.value().equals("/"));
            if (!coversRoot) {
                // nginx answers a request no location matches with the server's own settings.
                locations.add(new FlatLocation(FlatLocation.Kind.PREFIX, "/", scope, block, 0, false));
            }
        }
        boolean isDefault = listens.stream().anyMatch(Listen::defaultServer);
        return new Server(block, scope, listens, names, locations, named, isDefault);
    }

    private void names(Directive d, List<String> names) {
        report.mapped(d);
        for (String n : d.args()) {
            if (n.isEmpty() || n.equals("_") || n.equals("\"\"")) {
                continue;
            }
            if (n.startsWith("~") || n.endsWith(".*")) {
                report.unmapped(d, "the name " + n + ": Portico's host names are exact or *.suffix");
            } else if (n.startsWith(".")) {
                names.add(n.substring(1).toLowerCase());
                names.add("*" + n.toLowerCase());
            } else if (!names.contains(n.toLowerCase())) {
                names.add(n.toLowerCase());
            }
        }
    }

    private Optional<Listen> listen(Directive d) {
        String a = d.arg(0);
        if (a.startsWith("unix:")) {
            report.unmapped(d, "Portico listens on TCP addresses only");
            return Optional.empty();
        }
        String address;
        if (a.matches("\\d+")) {
            address = "0.0.0.0:" + a;
        } else if (a.startsWith("[")) {
            address = a.contains("]:") ? a : a + ":80";
        } else if (a.contains(":")) {
            address = a.startsWith("*:") ? "0.0.0.0:" + a.substring(2) : a;
        } else {
            address = a.equals("*") ? "0.0.0.0:80" : a + ":80";
        }
        String host = address.substring(0, address.lastIndexOf(':'));
        if (!host.equals("localhost") && !host.matches("[0-9.]+|\\[[0-9A-Fa-f:.]*]")) {
            report.unmapped(d, "Portico listens on literal addresses only (no name lookups at start): " + host);
            return Optional.empty();
        }
        boolean ssl = false;
        boolean def = false;
        boolean http2 = false;
        boolean proxyProtocol = false;
        boolean clean = true;
        for (String p : d.args().subList(1, d.args().size())) {
            switch (p.split("=", 2)[0]) {
                case "ssl" -> ssl = true;
                case "default_server", "default" -> def = true;
                // nginx enables it for the address:port, whichever server's listen says it (Listeners).
                case "http2" -> http2 = true;
                case "quic" -> {
                    report.unmapped(d, "quic: HTTP/3 is not supported; the listener serves HTTP/1.1 and HTTP/2");
                    clean = false;
                }
                // The listener's proxy-protocol, trusted from set_real_ip_from (Listeners).
                case "proxy_protocol" -> proxyProtocol = true;
                case "reuseport", "backlog", "deferred", "bind", "ipv6only", "fastopen", "so_keepalive", "rcvbuf",
                        "sndbuf" -> report.note(d, p + ": a socket option Portico chooses itself (SO_REUSEPORT per"
                        + " event loop with epoll)");
                default -> {
                    report.unmapped(d, "the listen parameter " + p + " is not mapped");
                    clean = false;
                }
            }
        }
        if (clean && !report.isHandled(d)) {
            report.mapped(d);
        } else if (clean) {
            report.mapped(d);
        }
        return Optional.of(new Listen(address, ssl, def, http2, proxyProtocol, d));
    }

    private void flatten(List<Directive> level, Scope scope, FlatLocation parent, int depth,
            List<FlatLocation> out, Map<String, Scope> named) {
        for (Directive d : level) {
            if (!d.name().equals("location") || !d.isBlock()) {
                continue;
            }
            report.mapped(d);
            Scope inner = scope.inner(d.block());
            String op = d.args().size() > 1 ? d.arg(0) : "";
            String value = d.args().size() > 1 ? d.arg(1) : d.arg(0);
            if (op.isEmpty() && value.startsWith("@")) {
                named.put(value.substring(1), inner);
                continue;
            }
            if (op.isEmpty() && value.startsWith("=") && value.length() > 1) {
                op = "=";
                value = value.substring(1);
            }
            if (!op.startsWith("~") && !value.startsWith("/")) {
                report.unmapped(d, "a location path that does not start with / matches no normalized request path;"
                        + " left out");
                markAll(d);
                continue;
            }
            if (parent != null && parent.kind() != FlatLocation.Kind.PREFIX) {
                report.unmapped(d, "a location nested in an exact or regex location; left out");
                markAll(d);
                continue;
            }
            FlatLocation flat = switch (op) {
                case "=" -> new FlatLocation(FlatLocation.Kind.EXACT, value, inner, d, depth, false);
                case "~", "~*" -> {
                    String regex = op.equals("~*") ? "(?i)" + value : value;
                    try {
                        Pattern.compile(regex);
                    } catch (RuntimeException e) {
                        report.unmapped(d, "the regex is not one Java's regexes read the same: " + e.getMessage()
                                .lines().findFirst().orElse(""));
                        markAll(d);
                        yield null;
                    }
                    if (parent != null) {
                        // nginx tries a nested regex only inside its parent's prefix.
                        regex = "^(?=" + Pattern.quote(parent.value()) + ")[\\s\\S]*?(?:" + regex + ")";
                    }
                    yield new FlatLocation(FlatLocation.Kind.REGEX, regex, inner, d, depth, false);
                }
                case "^~" -> new FlatLocation(FlatLocation.Kind.PREFIX, value, inner, d, depth, true);
                case "" -> new FlatLocation(FlatLocation.Kind.PREFIX, value, inner, d, depth, false);
                default -> {
                    report.unmapped(d, "unknown location modifier " + op);
                    markAll(d);
                    yield null;
                }
            };
            if (flat == null) {
                continue;
            }
            out.add(flat);
            flatten(d.block(), inner, flat, depth + 1, out, named);
        }
    }

    private void markAll(Directive d) {
        report.mapped(d);
        if (d.isBlock()) {
            d.block().forEach(this::markAll);
        }
    }
}
