package io.portico.proxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port whose connects never complete, for connect timeouts without leaving loopback: a listener with a
 * backlog of 1 that never accepts, its accept queue filled (Linux keeps backlog + 1 connections), so the kernel drops
 * further SYNs and a connect hangs until the client's own timeout. Closing it resets the hanging connects.
 */
final class UnansweredPort implements AutoCloseable {
    private final ServerSocketChannel listener;
    private final List<SocketChannel> fillers = new ArrayList<>();

    UnansweredPort() {
        try {
            listener = ServerSocketChannel.open();
            listener.bind(new InetSocketAddress("127.0.0.1", 0), 1);
            for (int i = 0; i < 2; i++) {
                fillers.add(SocketChannel.open(listener.getLocalAddress()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return listener.socket().getLocalPort();
    }

    @Override
    public void close() throws IOException {
        for (SocketChannel c : fillers) {
            c.close();
        }
        listener.close();
    }
}
