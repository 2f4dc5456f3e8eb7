package io.portico.cache;

import java.util.ArrayList;
import java.util.List;

/**
 * A miss in flight on one key (nginx's {@code proxy_cache_lock}): the first request goes upstream, the ones that
 * come meanwhile wait here as callbacks until its response is stored (they are answered from it), turns out not to
 * be storable or fails (they go upstream themselves), or their {@code lock-timeout} passes. Shared by event loops:
 * the waiter list is guarded by the fill's lock, and callbacks run outside it.
 */
final class Fill {
    /** A request waiting; {@link #done} is called once, on any thread, with the entry or null. */
    interface Waiter {
        void done(CachedResponse entry, boolean stale);
    }

    private final CacheZone zone;
    private final String key;
    private List<Waiter> waiters = new ArrayList<>();

    Fill(CacheZone zone, String key) {
        this.zone = zone;
        this.key = key;
    }

    /** Adds a waiter; false when the fill completed meanwhile (the caller looks again or goes upstream). */
    synchronized boolean join(Waiter w) {
        if (waiters == null) {
            return false;
        }
        waiters.add(w);
        return true;
    }

    /** Takes a waiter out (its timeout or its client's close); false when it is being answered already. */
    synchronized boolean leave(Waiter w) {
        return waiters != null && waiters.remove(w);
    }

    /**
     * Ends the fill: waiters get {@code entry} (stored, or stale and {@code stale}), or null to go upstream. Only the
     * first call counts.
     */
    void complete(CachedResponse entry, boolean stale) {
        List<Waiter> ws;
        synchronized (this) {
            if (waiters == null) {
                return;
            }
            ws = waiters;
            waiters = null;
        }
        zone.fillDone(key, this);
        for (Waiter w : ws) {
            w.done(entry, stale);
        }
    }
}
