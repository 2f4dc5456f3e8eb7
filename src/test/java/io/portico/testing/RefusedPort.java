package io.portico.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * A loopback port where nothing listens, held for the test: a bound, unconnected socket keeps any other test's
 * listener (or an outgoing connection's source port) off it, so a connect is refused every time. A port merely
 * closed after use can be taken by the next listener, and a "refused" test then times out instead.
 */
public final class RefusedPort implements AutoCloseable {
    private final Socket holder = new Socket();

    public RefusedPort() {
        try {
            holder.bind(new InetSocketAddress("127.0.0.1", 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return holder.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        holder.close();
    }
}
