package io.portico.server;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.portico.metrics.ConnectionCounts;
import java.util.function.Supplier;

/**
 * Client connections by state, nginx's stub_status figures, sampled by walking the open connections when the
 * metrics or status page asks: the request path pays nothing for them. Each connection's state is what its
 * {@link ClientTimeoutHandler} last recorded, or for HTTP/2 whether a stream is open, read from the asking thread
 * (a moment stale at worst).
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
            int s = t != null ? t.stateForMetrics() : http2State(ch);
            if (s == 1) {
                reading++;
            } else if (s == 2) {
                writing++;
            }
        }
        return new ConnectionCounts(open, reading, writing, open - reading - writing);
    }

    /**
     * An HTTP/2 connection is writing while it has a stream open, else waiting (nginx counts it so). Its codec's
     * count is read from the asking thread: an int, a moment stale at worst, as the phases above.
     */
    private static int http2State(Channel ch) {
        Http2FrameCodec codec = ch.pipeline().get(Http2FrameCodec.class);
        return codec != null && codec.connection().numActiveStreams() > 0 ? 2 : 0;
    }
}
