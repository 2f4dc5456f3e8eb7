package io.portico.nginx;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * What the translation could not carry over (each with file:line, the directive and why) and what it changed
 * deliberately or left out because Portico does it on its own (notes). Also the directives already accounted for,
 * so that a final walk can list every other one: nothing is dropped silently.
 */
public final class Report {
    /** One nginx line and what happened to it. */
    public record Item(String where, String directive, String reason) {
        @Override
        public String toString() {
            return where + ": " + directive + "  " + reason;
        }
    }

    private final List<Item> unmapped = new ArrayList<>();
    private final List<Item> notes = new ArrayList<>();
    private final Set<Directive> handled = Collections.newSetFromMap(new IdentityHashMap<>());

    /** Records that {@code d} could not be carried over; an inherited directive seen again is listed once. */
    void unmapped(Directive d, String reason) {
        handled.add(d);
        Item i = new Item(d.source().toString(), d.summary(), reason);
        if (!unmapped.contains(i)) {
            unmapped.add(i);
        }
    }

    void note(Directive d, String reason) {
        handled.add(d);
        Item i = new Item(d.source().toString(), d.summary(), reason);
        if (!notes.contains(i)) {
            notes.add(i);
        }
    }

    void note(Source where, String directive, String reason) {
        notes.add(new Item(where.toString(), directive, reason));
    }

    /** Marks a directive as carried into the output. */
    void mapped(Directive d) {
        handled.add(d);
    }

    boolean isHandled(Directive d) {
        return handled.contains(d);
    }

    public List<Item> unmapped() {
        return List.copyOf(unmapped);
    }

    public List<Item> notes() {
        return List.copyOf(notes);
    }
}
