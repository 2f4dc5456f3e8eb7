package io.portico.nginx;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The directives in force at one place, innermost level first (a location, its parent locations, the server,
 * http). nginx's inheritance: a directive is taken from the nearest level that has it, and a directive that can
 * repeat (add_header, proxy_set_header, limit_req, allow/deny) as the whole group of the nearest level that has
 * any, never merged across levels.
 */
record Scope(List<List<Directive>> levels) {

    static Scope of(List<Directive> level) {
        return new Scope(List.of(level));
    }

    Scope inner(List<Directive> level) {
        List<List<Directive>> l = new ArrayList<>();
        l.add(level);
        l.addAll(levels);
        return new Scope(List.copyOf(l));
    }

    /** The last of {@code name} at the nearest level that has one (nginx refuses duplicates; the last is safe). */
    Optional<Directive> find(String name) {
        for (List<Directive> level : levels) {
            Directive found = null;
            for (Directive d : level) {
                if (d.name().equals(name) && !d.isBlock()) {
                    found = d;
                }
            }
            if (found != null) {
                return Optional.of(found);
            }
        }
        return Optional.empty();
    }

    /** {@code name} at this level only (alias, proxy_pass, return are not inherited). */
    Optional<Directive> here(String name) {
        return levels.get(0).stream().filter(d -> d.name().equals(name) && !d.isBlock()).reduce((a, b) -> b);
    }

    /** Every directive named one of {@code names} at the nearest level that has any of them, in order. */
    List<Directive> group(String... names) {
        for (List<Directive> level : levels) {
            List<Directive> found = level.stream()
                    .filter(d -> !d.isBlock() && List.of(names).contains(d.name()))
                    .toList();
            if (!found.isEmpty()) {
                return found;
            }
        }
        return List.of();
    }
}
