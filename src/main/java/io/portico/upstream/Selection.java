package io.portico.upstream;

import java.net.InetAddress;
import java.util.List;

/**
 * What a balancer may look at for one attempt: the evaluated hash key (HASH), the client address (IP_HASH), and the
 * servers already tried by this request, which are skipped.
 */
public record Selection(String hashKey, InetAddress client, List<UpstreamServer> tried) {

    boolean usable(UpstreamServer server) {
        return server.available() && !tried.contains(server);
    }
}
