package io.portico.config;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** Reads the top-level {@code caches} zones and a proxy location's {@code cache { }}. */
final class CacheReader {
    private CacheReader() {}

    static Map<String, CacheZoneConfig> readZones(Node root, Config defaults) {
        Map<String, CacheZoneConfig> out = new LinkedHashMap<>();
        root.entries("caches", defaults.getConfig("cache-zone")).forEach((name, n) -> {
            long maxSize = n.bytes("max-size", 1024, Long.MAX_VALUE);
            Duration inactive = n.duration("inactive", Duration.ofSeconds(1));
            n.finish();
            out.put(name, new CacheZoneConfig(name, maxSize, inactive));
        });
        return Map.copyOf(out);
    }

    /** The location's cache, or empty when it has none (a problem is recorded when it cannot be read). */
    static Optional<CacheConfig> read(Node location, Config defaults, Set<String> zones, boolean proxy) {
        if (!location.isSet("cache")) {
            return Optional.empty();
        }
        Optional<Node> obj = location.object("cache", defaults.getConfig("cache"));
        if (obj.isEmpty()) {
            return Optional.empty();
        }
        if (!proxy) {
            location.problem("cache", "a cache needs a proxy target (expected: cache on a proxy location)");
        }
        Node n = obj.get();
        String zone = n.string("zone");
        if (!zones.contains(zone)) {
            n.problem("zone", "'" + zone + "' names no cache zone (expected: one of " + new TreeSet<>(zones)
                    + " from caches)");
        }
        Map<Integer, Duration> valid = new LinkedHashMap<>();
        Optional<Duration> validAny = Optional.empty();
        Optional<Node> v = n.object("valid", null);
        if (v.isPresent()) {
            for (String code : v.get().keys()) {
                Duration d = v.get().duration(code, Duration.ZERO);
                if (code.equals("any")) {
                    validAny = Optional.of(d);
                } else if (code.matches("[1-5][0-9][0-9]") && Integer.parseInt(code) >= 200) {
                    valid.put(Integer.parseInt(code), d);
                } else {
                    v.get().problem(code, "'" + code + "' is not a status (expected: 200 to 599, or any)");
                }
            }
        }
        TextTemplate key = template(n, "key");
        Set<String> methods = new LinkedHashSet<>();
        for (String m : n.strings("methods")) {
            String upper = m.toUpperCase(Locale.ROOT);
            if (upper.equals("GET") || upper.equals("HEAD")) {
                methods.add(upper);
            } else {
                n.problem("methods", "'" + m + "' (expected: GET, HEAD; other methods are never cached)");
            }
        }
        long maxObject = n.bytes("max-object-size", 0, Integer.MAX_VALUE - 8);
        boolean honor = n.bool("honor-cache-control");
        Set<String> useStale = new LinkedHashSet<>();
        for (String s : n.strings("use-stale")) {
            String lower = s.toLowerCase(Locale.ROOT);
            if (CacheConfig.STALE_CONDITIONS.contains(lower)) {
                useStale.add(lower);
            } else {
                n.problem("use-stale", "'" + s + "' (expected: some of " + CacheConfig.STALE_CONDITIONS + ")");
            }
        }
        Duration lockTimeout = n.duration("lock-timeout", Duration.ZERO);
        List<TextTemplate> bypass = new ArrayList<>();
        for (String b : n.strings("bypass")) {
            try {
                bypass.add(TextTemplate.parse(b));
            } catch (IllegalArgumentException e) {
                n.problem("bypass", "'" + b + "': " + e.getMessage());
            }
        }
        n.finish();
        return Optional.of(new CacheConfig(zone, Map.copyOf(valid), validAny, key, Set.copyOf(methods), maxObject,
                honor, Set.copyOf(useStale), lockTimeout, List.copyOf(bypass)));
    }

    private static TextTemplate template(Node n, String key) {
        String text = n.string(key);
        try {
            TextTemplate t = TextTemplate.parse(text);
            if (t.parts().isEmpty()) {
                n.problem(key, "is empty (expected: a key such as \"$scheme$host$request_uri\")");
            }
            return t;
        } catch (IllegalArgumentException e) {
            n.problem(key, "'" + text + "': " + e.getMessage());
            return TextTemplate.literal(text);
        }
    }
}
