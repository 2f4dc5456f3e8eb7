package io.portico.upstream;

import io.portico.config.UpstreamConfig;
import java.util.List;

/** Chooses one usable server of a tier (primaries or backups), or null when none is usable. */
interface Balancer {

    UpstreamServer pick(Selection selection);

    static Balancer of(UpstreamConfig.Balance policy, List<UpstreamServer> servers) {
        return switch (policy) {
            case ROUND_ROBIN -> new SmoothWeightedRoundRobin(servers);
            case LEAST_CONN -> new LeastConnections(servers);
            case IP_HASH -> new HashRing(servers, true);
            case HASH -> new HashRing(servers, false);
            case RANDOM_TWO -> new RandomTwoChoices(servers);
        };
    }
}
