package io.portico.upstream;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Weighted least connections: the usable server with the fewest requests in flight per unit of weight; ties are
 * broken by a rotating start so idle servers share the load instead of the first one taking it all.
 */
final class LeastConnections implements Balancer {
    private final List<UpstreamServer> servers;
    private final AtomicInteger rotation = new AtomicInteger();

    LeastConnections(List<UpstreamServer> servers) {
        this.servers = List.copyOf(servers);
    }

    @Override
    public UpstreamServer pick(Selection selection) {
        int n = servers.size();
        int start = Math.floorMod(rotation.getAndIncrement(), n);
        UpstreamServer best = null;
        for (int k = 0; k < n; k++) {
            UpstreamServer s = servers.get((start + k) % n);
            if (selection.usable(s) && (best == null || fewer(s, best))) {
                best = s;
            }
        }
        return best;
    }

    /** a.active / a.weight < b.active / b.weight without division. */
    static boolean fewer(UpstreamServer a, UpstreamServer b) {
        return (long) a.active() * b.weight() < (long) b.active() * a.weight();
    }
}
