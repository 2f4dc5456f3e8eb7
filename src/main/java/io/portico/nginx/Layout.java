package io.portico.nginx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which server becomes the top-level locations and which become hosts with which names. nginx chooses a server
 * by address first, then by name: each address:port has its own default (the server whose listen there says
 * {@code default_server}, else the first one listening there), and a name belongs to the first server that has it
 * on that address. Portico's hosts have a {@code listen} each, so names are kept per address, and a host that says
 * {@code default = true} answers the unknown names on its listeners: a server that is nginx's default of some
 * addresses becomes a default host on those (and a plain host with the same names on its other addresses); the
 * top-level server's names become a host too on the addresses where another server is the default, or that one
 * would answer them there. What a host cannot say (a default without a name of its own) is reported.
 *
 * @param hosts the {@code hosts} entries, a server may have two (where it is the default, and where not)
 * @param perListener whether each host's {@code listen} is written (the kept servers listen on different sets
 *     of addresses, or a host is a default; otherwise every host answers on every listener, as in nginx)
 */
record Layout(Servers.Server defaultServer, List<Host> hosts, List<Servers.Server> kept,
        Map<String, Servers.Server> addressDefaults, boolean perListener) {

    /** One {@code hosts} entry: a server's names on some of its (nginx) addresses, the default there or not. */
    record Host(Servers.Server server, List<String> names, Set<String> addresses, boolean isDefault) {}

    static Layout of(List<Servers.Server> servers, Report report) {
        if (servers.isEmpty()) {
            return new Layout(null, List.of(), List.of(), Map.of(), false);
        }
        Map<String, Servers.Server> defaults = addressDefaults(servers);
        Servers.Server def = chooseDefault(servers, defaults);
        Map<Servers.Server, List<String>> names = names(servers, report);
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
                            + ": a Portico host needs a name, and the top-level locations are the server at "
                            + def.block().source() + "; this one is left out");
                } else {
                    reportNameless(s, defaults, def, report);
                }
                continue;
            }
            kept.add(s);
        }
        List<Host> hosts = new ArrayList<>();
        for (Servers.Server s : servers) {
            List<String> own = names.getOrDefault(s, List.of());
            if (own.isEmpty() || !kept.contains(s)) {
                continue; // left out above, or the top-level server without a name
            }
            Set<String> isDefault = new LinkedHashSet<>();
            Set<String> rest = new LinkedHashSet<>();
            for (String a : addresses(s)) {
                Servers.Server d = defaults.get(a);
                if (s == def) {
                    // Its names need a host only where a default host would take them from the top level.
                    if (d != def && kept.contains(d)) {
                        rest.add(a);
                    }
                } else {
                    (d == s ? isDefault : rest).add(a);
                }
            }
            if (!isDefault.isEmpty()) {
                hosts.add(new Host(s, own, isDefault, true));
            }
            if (!rest.isEmpty()) {
                hosts.add(new Host(s, own, rest, false));
            }
        }
        Set<Set<String>> sets = new LinkedHashSet<>();
        kept.forEach(s -> sets.add(addresses(s)));
        boolean perListener = sets.size() > 1 || hosts.stream().anyMatch(Host::isDefault);
        return new Layout(def, List.copyOf(hosts), List.copyOf(kept), defaults, perListener);
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

    /** A server whose names are all other servers' is left out; where it is nginx's default that differs. */
    private static void reportNameless(Servers.Server s, Map<String, Servers.Server> defaults, Servers.Server def,
            Report report) {
        List<String> where = new ArrayList<>();
        defaults.forEach((a, d) -> {
            if (d == s) {
                where.add(a);
            }
        });
        if (!where.isEmpty()) {
            report.unmapped(s.block(), (s.defaultServer() ? "default_server on " + where : "nginx's default on "
                    + where + " as the first server there") + ", with no name of its own (other servers have them"
                    + " there): a Portico host needs one, so it is left out and the top-level locations (the server"
                    + " at " + def.block().source() + ") answer the names no host there has");
        }
    }

    static Set<String> addresses(Servers.Server s) {
        Set<String> out = new LinkedHashSet<>();
        s.listens().forEach(l -> out.add(l.address()));
        return out;
    }
}
