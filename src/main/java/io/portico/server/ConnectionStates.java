package io.portico.server;

import io.netty.channel.Channel;
import io.portico.metrics.ConnectionCounts;
import java.util.function.Supplier;

/**
 * Client connections by state, nginx's stub_status figures, sampled by walking the open connections when the
 * metrics or status page asks: the request path pays nothing for them. Each connection's state is what its
 * {@link ClientTimeoutHandler} last recorded, read from the asking thread (a moment stale at worst).
 */
final class ConnectionStates implements Supplier<ConnectionCounts> {
    private final ServerState state;

    ConnectionStates(ServerState state) {
        this.state = state;
    }

    @Override
    public ConnectionCounts get() {
        int open = 0;
        int reading = 0;
        int writing = 0;
        for (Channel ch : state.clients()) {
            open++;
            ClientTimeoutHandler t = ch.pipeline().get(ClientTimeoutHandler.class);
            int s = t == null ? 0 : t.stateForMetrics();
            if (s == 1) {
                reading++;
            } else if (s == 2) {
                writing++;
            }
        }
        return new ConnectionCounts(open, reading, writing, open - reading - writing);
    }
}
