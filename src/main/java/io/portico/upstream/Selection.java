package io.portico.upstream;

import java.net.InetAddress;
import java.util.List;

/**
 * What a balancer may look at for one attempt: the evaluated hash key (HASH), the client address (IP_HASH), and the
 * servers already tried by this request, which are skipped. Servers at their {@code max-connections} are skipped
 * too ({@code skipFull}, nginx's {@code max_conns}), unless every one is: then the request queues for one of them.
 */
public record Selection(String hashKey, InetAddress client, List<UpstreamServer> tried, boolean skipFull) {

    public Selection(String hashKey, InetAddress client, List<UpstreamServer> tried) {
        this(hashKey, client, tried, true);
    }

    /** The same selection among servers at their limit too, for a request that will wait for a permit. */
    Selection queueing() {
        return new Selection(hashKey, client, tried, false);
    }

    boolean usable(UpstreamServer server) {
        return server.available() && !tried.contains(server) && !(skipFull && server.limit().full());
    }
}
