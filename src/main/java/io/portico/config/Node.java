package io.portico.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * A config object being read into a record: the user's keys over their defaults. Every getter records a
 * problem instead of throwing and returns a usable placeholder, so one pass finds every mistake; {@link
 * #finish} reports the user's keys that nothing read (unknown keys, with a "did you mean").
 */
final class Node {
    private final Config config;
    private final ConfigObject user;
    private final String path;
    private final Problems problems;
    private final Set<String> read = new HashSet<>();

    Node(Config config, ConfigObject user, String path, Problems problems) {
        this.config = config;
        this.user = user;
        this.path = path;
        this.problems = problems;
    }

    String path() {
        return path;
    }

    String key(String name) {
        return path.isEmpty() ? name : name.isEmpty() ? path : path + "." + name;
    }

    ConfigOrigin origin() {
        return user != null ? user.origin() : config.root().origin();
    }

    ConfigOrigin origin(String name) {
        ConfigValue v = user != null ? user.get(name) : null;
        if (v == null && config.hasPathOrNull(q(name))) {
            v = config.getValue(q(name));
        }
        return v != null ? v.origin() : origin();
    }

    void problem(String name, String message) {
        problems.add(origin(name), key(name), message);
    }

    boolean isSet(String name) {
        read.add(name);
        return config.hasPath(q(name));
    }

    ConfigValueType valueType(String name) {
        return config.hasPath(q(name)) ? config.getValue(q(name)).valueType() : ConfigValueType.NULL;
    }

    /** Whether the user (not the defaults) set this key. */
    boolean userSet(String name) {
        return user != null && user.containsKey(name);
    }

    String string(String name) {
        return get(name, "a string", c -> {
            ConfigValue v = c.getValue(q(name));
            if (v.valueType() == ConfigValueType.OBJECT || v.valueType() == ConfigValueType.LIST) {
                throw new ConfigException.WrongType(v.origin(), "");
            }
            return c.getString(q(name));
        }, "");
    }

    Optional<String> optionalString(String name) {
        read.add(name);
        return config.hasPath(q(name)) ? Optional.of(string(name)) : Optional.empty();
    }

    boolean bool(String name) {
        return get(name, "true or false", c -> c.getBoolean(q(name)), false);
    }

    int integer(String name, int min, int max) {
        int v = get(name, "an integer", c -> c.getInt(q(name)), min);
        if (v < min || v > max) {
            problem(name, v + " is out of range (expected: " + range(min, max) + ")");
            return min;
        }
        return v;
    }

    long bytes(String name, long min, long max) {
        long v = get(name, "a size such as 64k, 16m", c -> c.getBytes(q(name)), min);
        if (v < min || v > max) {
            problem(name, v + " bytes is out of range (expected: " + range(min, max) + " bytes)");
            return min;
        }
        return v;
    }

    /**
     * A duration. Every duration key is read here, so here is where a bare number is refused: Typesafe Config
     * reads {@code 75} as 75 ms, where nginx reads it as 75 s; either guess would surprise someone. {@code 0} means
     * the same in any unit and stays allowed.
     */
    Duration duration(String name, Duration min) {
        Optional<String> bare = bareNumber(name);
        if (bare.isPresent()) {
            read.add(name);
            problem(name, "'" + bare.get() + "' has no unit, which would mean " + bare.get() + " milliseconds"
                    + " (expected: a unit, such as " + bare.get() + "s, or " + bare.get() + "ms if meant)");
            return min;
        }
        Duration v = get(name, "a duration such as 500ms, 10s, 5m", c -> c.getDuration(q(name)), min);
        if (v.compareTo(min) < 0) {
            problem(name, v + " is too short (expected: >= " + min.toMillis() + "ms)");
            return min;
        }
        return v;
    }

    /** The text of a value that is a number without a unit (not 0), quoted or not. */
    private Optional<String> bareNumber(String name) {
        if (!config.hasPath(q(name))) {
            return Optional.empty();
        }
        ConfigValue v = config.getValue(q(name));
        if (v.valueType() != ConfigValueType.NUMBER && v.valueType() != ConfigValueType.STRING) {
            return Optional.empty();
        }
        String text = String.valueOf(v.unwrapped()).strip();
        return text.matches("[0-9]+(\\.[0-9]+)?") && !text.matches("0+(\\.0+)?")
                ? Optional.of(text) : Optional.empty();
    }

    /** A string or a list of strings, as a list. */
    List<String> strings(String name) {
        read.add(name);
        if (!config.hasPath(q(name))) {
            return List.of();
        }
        ConfigValue v = config.getValue(q(name));
        if (v.valueType() == ConfigValueType.LIST) {
            List<String> out = new ArrayList<>();
            for (ConfigValue e : (ConfigList) v) {
                if (e.valueType() == ConfigValueType.OBJECT || e.valueType() == ConfigValueType.LIST) {
                    problems.add(e.origin(), key(name), "wrong type (expected: a list of strings)");
                } else {
                    out.add(String.valueOf(e.unwrapped()));
                }
            }
            return out;
        }
        if (v.valueType() == ConfigValueType.OBJECT) {
            problem(name, "wrong type (expected: a string or a list of strings)");
            return List.of();
        }
        return List.of(String.valueOf(v.unwrapped()));
    }

    <E extends Enum<E>> E enumValue(String name, Class<E> type, E fallback) {
        String s = string(name);
        for (E e : type.getEnumConstants()) {
            if (e.name().replace('_', '-').equalsIgnoreCase(s.replace('_', '-'))) {
                return e;
            }
        }
        if (!s.isEmpty()) {
            problem(name, "'" + s + "' is not allowed (expected: one of " + names(type) + ")");
        }
        return fallback;
    }

    /** The object at {@code name} over {@code defaults} (or none), or empty when it is not an object. */
    Optional<Node> object(String name, Config defaults) {
        read.add(name);
        if (!config.hasPath(q(name))) {
            return Optional.empty();
        }
        ConfigValue v = config.getValue(q(name));
        if (v.valueType() != ConfigValueType.OBJECT) {
            problem(name, "wrong type (expected: an object { ... })");
            return Optional.empty();
        }
        ConfigObject u = userSet(name) && user.get(name) instanceof ConfigObject o ? o : null;
        Config merged = ((ConfigObject) v).toConfig();
        if (defaults != null) {
            merged = merged.withFallback(defaults);
        }
        return Optional.of(new Node(merged, u, key(name), problems));
    }

    /** Each entry of the object at {@code name}, in file order, as a node over {@code defaults}. */
    Map<String, Node> entries(String name, Config defaults) {
        Map<String, Node> out = new LinkedHashMap<>();
        object(name, null).ifPresent(parent -> {
            List<String> names = new ArrayList<>(parent.config.root().keySet());
            names.sort((a, b) -> Integer.compare(
                    parent.config.root().get(a).origin().lineNumber(),
                    parent.config.root().get(b).origin().lineNumber()));
            for (String entry : names) {
                parent.object(entry, defaults).ifPresent(n -> out.put(entry, n));
            }
        });
        return out;
    }

    /** The raw values of the list at {@code name}. */
    List<ConfigValue> list(String name) {
        read.add(name);
        if (!config.hasPath(q(name))) {
            return List.of();
        }
        ConfigValue v = config.getValue(q(name));
        if (v.valueType() != ConfigValueType.LIST) {
            problem(name, "wrong type (expected: a list [ ... ])");
            return List.of();
        }
        return (ConfigList) v;
    }

    /** A node for one object element of a list, over {@code defaults}. */
    Node element(ConfigObject value, String key, Config defaults) {
        return new Node(value.toConfig().withFallback(defaults), value, key, problems);
    }

    /**
     * Reports every key the user set that nothing read: unknown (with a "did you mean" from {@code known}) or,
     * when {@code known} has it, meaningless here ({@code unusedWhy}).
     */
    void finish(Set<String> known, String unusedWhy) {
        if (user == null) {
            return;
        }
        for (String k : user.keySet()) {
            if (read.contains(k)) {
                continue;
            }
            if (known.contains(k)) {
                problems.add(user.get(k).origin(), key(k), "has no effect " + unusedWhy);
            } else {
                Set<String> candidates = new HashSet<>(known);
                candidates.addAll(read);
                String hint = Suggestions.closest(k, candidates).map(s -> " (did you mean '" + s + "'?)").orElse("");
                problems.add(user.get(k).origin(), key(k), "unknown key" + hint);
            }
        }
    }

    void finish() {
        finish(Set.of(), "");
    }

    Set<String> keys() {
        return config.root().keySet();
    }

    private <T> T get(String name, String expected, Function<Config, T> getter, T placeholder) {
        read.add(name);
        try {
            if (!config.hasPath(q(name))) {
                problems.add(origin(), key(name), "is required (expected: " + expected + ")");
                return placeholder;
            }
            return getter.apply(config);
        } catch (ConfigException e) {
            String shown = config.hasPath(q(name)) ? render(config.getValue(q(name))) : "";
            problem(name, shown + "not valid (expected: " + expected + ")");
            return placeholder;
        }
    }

    private static String render(ConfigValue v) {
        Object u = v.unwrapped();
        return u instanceof String || u instanceof Number || u instanceof Boolean ? "'" + u + "': " : "";
    }

    private static String q(String name) {
        return ConfigUtil.quoteString(name);
    }

    private static String range(long min, long max) {
        return max == Integer.MAX_VALUE || max == Long.MAX_VALUE ? ">= " + min : min + ".." + max;
    }

    static <E extends Enum<E>> String names(Class<E> type) {
        List<String> out = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
            out.add(e.name().toLowerCase().replace('_', '-'));
        }
        return String.join(", ", out);
    }
}
