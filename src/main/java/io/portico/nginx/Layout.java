package io.portico.nginx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which server becomes the default (the top-level locations) and which become hosts with which names. nginx
 * chooses a server by address first, then by name: each address:port has its own default (the server whose listen
 * there says {@code default_server}, else the first one listening there), and a name belongs to the first server
 * that has it on that address. Portico's hosts have a {@code listen} each, so names are kept per address; its
 * default is one for every listener, so an address whose nginx default is another server is reported: a request
 * there for a name no server on it has gets another answer (the server's own names are kept).
 *
 * @param perListener whether the kept servers listen on different sets of addresses (then each host's
 *     {@code listen} is written; otherwise every host answers on every listener, as in nginx)
 */
record Layout(Servers.Server defaultServer, Map<Servers.Server, List<String>> hosts, List<Servers.Server> kept,
        Map<String, Servers.Server> addressDefaults, boolean perListener) {

    static Layout of(List<Servers.Server> servers, Report report) {
        if (servers.isEmpty()) {
            return new Layout(null, Map.of(), List.of(), Map.of(), false);
        }
        Map<String, Servers.Server> defaults = addressDefaults(servers);
        Servers.Server def = chooseDefault(servers, defaults);
        Map<Servers.Server, List<String>> names = names(servers, report);
        Map<Servers.Server, List<String>> hosts = new LinkedHashMap<>();
        List<Servers.Server> kept = new ArrayList<>();
        kept.add(def);
        for (Servers.Server s : servers) {
            if (s == def) {
                continue;
            }
            List<String> own = names.getOrDefault(s, List.of());
            if (own.isEmpty()) {
                if (s.names().isEmpty()) {
                    report.unmapped(s.block(), "a second default server (no server_name) on " + addresses(s)
                            + ": Portico has one default, the server at " + def.block().source()
                            + "; this one is left out");
                }
                continue;
            }
            hosts.put(s, own);
            kept.add(s);
        }
        Set<Set<String>> sets = new LinkedHashSet<>();
        kept.forEach(s -> sets.add(addresses(s)));
        reportDefaults(defaults, def, kept, report);
        return new Layout(def, hosts, List.copyOf(kept), defaults, sets.size() > 1);
    }

    /** nginx's default server of each address: {@code default_server} there, else the first server there. */
    private static Map<String, Servers.Server> addressDefaults(List<Servers.Server> servers) {
        Map<String, Servers.Server> out = new LinkedHashMap<>();
        for (Servers.Server s : servers) {
            s.listens().forEach(l -> out.putIfAbsent(l.address(), s));
        }
        for (Servers.Server s : servers) {
            s.listens().stream().filter(Servers.Listen::defaultServer).forEach(l -> out.put(l.address(), s));
        }
        return out;
    }

    /**
     * The default of every address when one server is; else a {@code default_server}, else the server without a
     * name that has the most locations, else the first that does not only redirect (a redirect to https as the
     * default of a TLS listener would send unknown names round in a loop), else the first.
     */
    private static Servers.Server chooseDefault(List<Servers.Server> servers, Map<String, Servers.Server> defaults) {
        Set<Servers.Server> distinct = new LinkedHashSet<>(defaults.values());
        if (distinct.size() == 1) {
            return distinct.iterator().next();
        }
        Servers.Server explicit = servers.stream().filter(Servers.Server::defaultServer).findFirst().orElse(null);
        if (explicit != null) {
            return explicit;
        }
        int most = servers.stream().filter(s -> s.names().isEmpty()).mapToInt(s -> s.locations().size()).max()
                .orElse(-1);
        return servers.stream().filter(s -> s.names().isEmpty() && s.locations().size() == most).findFirst()
                .or(() -> servers.stream().filter(s -> !s.returnsOnly()).findFirst())
                .orElse(servers.get(0));
    }

    /**
     * Each server's names that are its own on every address it listens on; a name an earlier server has on the
     * same address is nginx's "conflicting server name", which nginx ignores (noted).
     */
    private static Map<Servers.Server, List<String>> names(List<Servers.Server> servers, Report report) {
        Map<String, Servers.Server> owner = new LinkedHashMap<>();
        Map<Servers.Server, List<String>> out = new LinkedHashMap<>();
        for (Servers.Server s : servers) {
            List<String> own = new ArrayList<>();
            for (String n : s.names()) {
                List<String> lost = new ArrayList<>();
                Servers.Server other = null;
                for (String a : addresses(s)) {
                    Servers.Server prev = owner.putIfAbsent(n + " " + a, s);
                    if (prev != null && prev != s) {
                        lost.add(a);
                        other = prev;
                    }
                }
                if (lost.isEmpty()) {
                    own.add(n);
                } else if (lost.size() == addresses(s).size()) {
                    report.note(s.block(), "the name " + n + " on " + lost + ": nginx ignores it (conflicting server"
                            + " name), the server at " + other.block().source() + " has it there");
                } else {
                    report.unmapped(s.block(), "the name " + n + " is this server's on some of its addresses only"
                            + " (the server at " + other.block().source() + " has it on " + lost + "); left out");
                }
            }
            out.put(s, own);
        }
        return out;
    }

    private static void reportDefaults(Map<String, Servers.Server> defaults, Servers.Server def,
            List<Servers.Server> kept, Report report) {
        Map<Servers.Server, List<String>> others = new LinkedHashMap<>();
        defaults.forEach((a, s) -> {
            if (s != def) {
                others.computeIfAbsent(s, k -> new ArrayList<>()).add(a);
            }
        });
        String why = ": Portico has one default for every listener, the server at " + def.block().source()
                + ", whose locations answer there a name no host on the listener has";
        others.forEach((s, addresses) -> {
            if (s.names().isEmpty() || !kept.contains(s)) {
                return; // left out above, and said so
            }
            report.unmapped(s.block(), (s.defaultServer() ? "default_server on " + addresses
                    : "nginx's default on " + addresses + " as the first server there") + why);
        });
    }

    static Set<String> addresses(Servers.Server s) {
        Set<String> out = new LinkedHashSet<>();
        s.listens().forEach(l -> out.add(l.address()));
        return out;
    }
}
