package io.portico.ratelimit;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * An upstream on loopback that holds every request until {@link #answerAll} (then answers 200 with an empty body),
 * so that the requests through Portico stay in progress: what a limit-conn zone counts. {@link #awaitHeld} waits
 * until that many request heads have arrived.
 */
final class HeldUpstream implements AutoCloseable {
    private final ServerSocket server;
    private final CountDownLatch release = new CountDownLatch(1);
    private final Semaphore arrived = new Semaphore(0);
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();

    HeldUpstream() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "held-upstream");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                sockets.add(s);
                Thread t = new Thread(() -> serve(s), "held-upstream-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            while (true) {
                if (!readHead(in)) {
                    return;
                }
                arrived.release();
                release.await();
                s.getOutputStream().write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
            }
        } catch (IOException | InterruptedException e) {
            // closed
        }
    }

    /** Reads up to the blank line after a request head; false at end of stream. */
    private static boolean readHead(InputStream in) throws IOException {
        int matched = 0;
        for (int c = in.read(); c >= 0; c = in.read()) {
            matched = (c == '\r' || c == '\n') ? matched + 1 : 0;
            if (matched == 4) {
                return true;
            }
        }
        return false;
    }

    void awaitHeld(int requests) throws InterruptedException {
        if (!arrived.tryAcquire(requests, 10, TimeUnit.SECONDS)) {
            throw new AssertionError("the upstream did not receive " + requests + " requests");
        }
    }

    void answerAll() {
        release.countDown();
    }

    @Override
    public void close() throws IOException {
        release.countDown();
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
