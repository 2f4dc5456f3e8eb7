package io.portico.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Clients on slow links (slowloris-like): each opens a connection and trickles its request headers one small line
 * at a time, never finishing, so a server with a few synchronous workers spends them waiting. A front tier that
 * buffers requests shields the app from them. Plain blocking sockets on a private scheduler thread, not the
 * benchmark's event loops.
 */
final class SlowClients implements AutoCloseable {

    private final List<Socket> sockets = new ArrayList<>();
    private final ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-slow-clients");
        t.setDaemon(true);
        return t;
    });
    private int opened;

    /** Opens {@code count} connections to {@code host:port} and starts trickling every {@code intervalMs}. */
    SlowClients(String host, int port, String path, int count, long intervalMs) {
        byte[] start = ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n").getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < count; i++) {
            try {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(host, port), 2000);
                s.getOutputStream().write(start);
                sockets.add(s);
            } catch (IOException e) {
                break; // the server refuses more: the ones opened still make the point
            }
        }
        opened = sockets.size();
        trickle.scheduleAtFixedRate(this::sendOneHeader, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    int opened() {
        return opened;
    }

    private void sendOneHeader() {
        for (Socket s : sockets) {
            try {
                OutputStream out = s.getOutputStream();
                out.write("X-Slow: 1\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException closedByServer) {
                // the server gave up on this client: fine, it is just not slow any more
            }
        }
    }

    @Override
    public void close() {
        trickle.shutdownNow();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
