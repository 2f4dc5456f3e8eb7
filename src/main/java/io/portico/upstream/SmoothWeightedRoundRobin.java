package io.portico.upstream;

import java.util.List;

/**
 * nginx's smooth weighted round-robin: every pick adds each usable server's weight to its current weight, takes the
 * largest, and subtracts the total from the winner, so weights 5,1,1 give a,a,b,a,c,a,a rather than a burst of a.
 */
final class SmoothWeightedRoundRobin implements Balancer {
    private final List<UpstreamServer> servers;
    private final int[] current;

    SmoothWeightedRoundRobin(List<UpstreamServer> servers) {
        this.servers = List.copyOf(servers);
        this.current = new int[servers.size()];
    }

    @Override
    public synchronized UpstreamServer pick(Selection selection) {
        int best = -1;
        int total = 0;
        for (int i = 0; i < servers.size(); i++) {
            UpstreamServer s = servers.get(i);
            if (!selection.usable(s)) {
                continue;
            }
            current[i] += s.weight();
            total += s.weight();
            if (best < 0 || current[i] > current[best]) {
                best = i;
            }
        }
        if (best < 0) {
            return null;
        }
        current[best] -= total;
        return servers.get(best);
    }
}
