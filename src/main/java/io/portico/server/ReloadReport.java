package io.portico.server;

import io.portico.config.LocationConfig;
import io.portico.config.PorticoConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a reload changed, for its log: listeners kept, added and removed; locations added and removed (by their
 * match); zones, upstream pools and cache zones kept (with their state) or replaced, added, removed; and the settings a reload
 * cannot change, which keep their running value until a restart.
 */
public record ReloadReport(List<String> lines) {

    static ReloadReport of(Generation old, Generation g, Collection<ListenerKey> added,
            Collection<ListenerKey> removed) {
        PorticoConfig before = old.config;
        PorticoConfig after = g.config;
        List<String> lines = new ArrayList<>();
        Set<ListenerKey> kept = new LinkedHashSet<>(g.listenerKeys());
        kept.removeAll(added);
        lines.add("listeners: kept " + kept + ", added " + added + ", removed " + removed);
        Set<String> locationsBefore = labels(before.allLocations());
        Set<String> locationsAfter = labels(after.allLocations());
        lines.add("locations: " + locationsAfter.size() + " (added " + minus(locationsAfter, locationsBefore)
                + ", removed " + minus(locationsBefore, locationsAfter) + ")");
        Set<String> zonesBefore = new LinkedHashSet<>(before.rateLimits().keySet());
        zonesBefore.addAll(before.limitConn().keySet());
        Set<String> zonesAfter = new LinkedHashSet<>(after.rateLimits().keySet());
        zonesAfter.addAll(after.limitConn().keySet());
        lines.add(line("zones", zonesBefore, zonesAfter, g.targets.keptZones(old.targets)));
        lines.add(line("upstreams", before.upstreams().keySet(), after.upstreams().keySet(),
                g.targets.keptUpstreams(old.targets)));
        lines.add(line("caches", before.caches().keySet(), after.caches().keySet(),
                g.targets.keptCaches(old.targets)));
        List<String> restart = new ArrayList<>();
        if (before.workers() != after.workers()) {
            restart.add("workers");
        }
        if (before.transport() != after.transport()) {
            restart.add("transport");
        }
        if (!before.accessLog().equals(after.accessLog())) {
            restart.add("access-log");
        }
        if (!before.demoApp().equals(after.demoApp())) {
            restart.add("demo-app");
        }
        if (!restart.isEmpty()) {
            lines.add("changed but kept until a restart: " + String.join(", ", restart));
        }
        return new ReloadReport(List.copyOf(lines));
    }

    private static String line(String what, Collection<String> before, Collection<String> after, List<String> kept) {
        Set<String> replaced = new LinkedHashSet<>(after);
        replaced.retainAll(before);
        replaced.removeAll(kept);
        return what + ": kept " + kept + ", replaced " + replaced + ", added " + minus(after, before)
                + ", removed " + minus(before, after);
    }

    private static Set<String> labels(List<LocationConfig> locations) {
        return locations.stream().map(l -> l.match().toString()).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static Set<String> minus(Collection<String> a, Collection<String> b) {
        Set<String> out = new LinkedHashSet<>(a);
        out.removeAll(b);
        return out;
    }

    @Override
    public String toString() {
        return String.join("; ", lines);
    }
}
