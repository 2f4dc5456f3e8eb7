package io.portico.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads {@code hosts}: virtual hosts, each with its names and its own {@code locations}. */
final class HostReader {
    /** A DNS name, or "*." before one: labels of letters, digits and dashes (no port, no trailing dot). */
    private static final Pattern NAME =
            Pattern.compile("(\\*\\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    private final Node root;
    private final Config defaults;
    private final Paths paths;
    private final Map<String, UpstreamConfig> upstreams;
    private final Set<String> zones;
    private final Set<String> connZones;
    private final List<ListenerConfig> listeners;
    private final Set<String> cacheZones;

    HostReader(Node root, Config defaults, Paths paths, Map<String, UpstreamConfig> upstreams, Set<String> zones,
            Set<String> connZones, List<ListenerConfig> listeners, Set<String> cacheZones) {
        this.listeners = listeners;
        this.cacheZones = cacheZones;
        this.root = root;
        this.defaults = defaults;
        this.paths = paths;
        this.upstreams = upstreams;
        this.zones = zones;
        this.connZones = connZones;
    }

    List<HostConfig> readAll() {
        List<HostConfig> out = new ArrayList<>();
        Set<ListenAddress> defaultOn = new HashSet<>(); // listeners that have a default host
        // name -> the hosts that have it, with the listeners each answers on (empty: all)
        Map<String, List<Map.Entry<Integer, List<ListenAddress>>>> owners = new HashMap<>();
        List<ConfigValue> list = root.list("hosts");
        for (int i = 0; i < list.size(); i++) {
            ConfigValue v = list.get(i);
            if (v.valueType() != ConfigValueType.OBJECT) {
                root.problem("hosts", "element " + i + " is not an object (expected: { names = [...], locations ="
                        + " [...] })");
                continue;
            }
            Node h = root.element((ConfigObject) v, root.key("hosts") + "." + i, defaults.getConfig("host"));
            List<ListenAddress> listen = listen(h);
            List<String> names = new ArrayList<>();
            for (String raw : h.strings("names")) {
                String name = raw.toLowerCase(Locale.ROOT);
                if (!NAME.matcher(name).matches()) {
                    h.problem("names", "'" + raw + "' (expected: a host name such as example.com or *.example.com,"
                            + " without a port)");
                    continue;
                }
                List<Map.Entry<Integer, List<ListenAddress>>> others = owners.computeIfAbsent(name, k -> new ArrayList<>());
                Integer clash = others.stream().filter(o -> overlap(o.getValue(), listen)).map(Map.Entry::getKey)
                        .findFirst().orElse(null);
                if (clash != null) {
                    h.problem("names", "'" + raw + "' is already a name of hosts." + clash + " on the same listener"
                            + " (expected: each name in one host per listener)");
                } else {
                    others.add(Map.entry(i, listen));
                    names.add(name);
                }
            }
            if (h.strings("names").isEmpty()) {
                h.problem("names", "no name (expected: at least one, e.g. [\"example.com\", \"*.example.com\"])");
            }
            List<LocationConfig> locations =
                    new LocationReader(h, defaults, paths, upstreams, zones, connZones, cacheZones).readAll();
            boolean isDefault = h.bool("default");
            h.finish();
            if (isDefault) {
                for (ListenerConfig l : listeners) {
                    if ((listen.isEmpty() || listen.contains(l.address())) && !defaultOn.add(l.address())) {
                        h.problem("default", "a second default host on " + l.address()
                                + " (expected: at most one default host per listener)");
                    }
                }
            }
            out.add(new HostConfig(List.copyOf(names), locations, listen, isDefault));
        }
        return List.copyOf(out);
    }

    /** The host's {@code listen}: addresses of configured listeners, each as written in {@code listen} above. */
    private List<ListenAddress> listen(Node h) {
        List<ListenAddress> out = new ArrayList<>();
        for (String text : h.strings("listen")) {
            ListenAddress address;
            try {
                address = Addresses.listen(text);
            } catch (IllegalArgumentException e) {
                h.problem("listen", "'" + text + "' " + e.getMessage() + " (expected: the address of a listener)");
                continue;
            }
            if (listeners.stream().noneMatch(l -> l.address().equals(address))) {
                h.problem("listen", "'" + text + "' is not one of the listeners (expected: one of "
                        + listeners.stream().map(l -> l.address().toString()).toList() + ")");
                continue;
            }
            out.add(address);
        }
        return List.copyOf(out);
    }

    private static boolean overlap(List<ListenAddress> a, List<ListenAddress> b) {
        return a.isEmpty() || b.isEmpty() || a.stream().anyMatch(b::contains);
    }
}
