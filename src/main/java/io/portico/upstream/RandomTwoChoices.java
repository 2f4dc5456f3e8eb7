package io.portico.upstream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The power of two choices: two servers drawn at random by weight, and the one with fewer requests in flight per
 * unit of weight wins. Nearly as even as least-conn without looking at every server.
 */
final class RandomTwoChoices implements Balancer {
    private final List<UpstreamServer> servers;

    RandomTwoChoices(List<UpstreamServer> servers) {
        this.servers = List.copyOf(servers);
    }

    @Override
    public UpstreamServer pick(Selection selection) {
        List<UpstreamServer> usable = new ArrayList<>(servers.size());
        int total = 0;
        for (UpstreamServer s : servers) {
            if (selection.usable(s)) {
                usable.add(s);
                total += s.weight();
            }
        }
        if (usable.isEmpty()) {
            return null;
        }
        UpstreamServer a = draw(usable, total);
        UpstreamServer b = draw(usable, total);
        return LeastConnections.fewer(b, a) ? b : a;
    }

    private static UpstreamServer draw(List<UpstreamServer> usable, int total) {
        int r = ThreadLocalRandom.current().nextInt(total);
        for (UpstreamServer s : usable) {
            r -= s.weight();
            if (r < 0) {
                return s;
            }
        }
        return usable.get(usable.size() - 1);
    }
}
