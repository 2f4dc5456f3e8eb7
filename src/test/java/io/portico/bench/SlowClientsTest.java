package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SlowClientsTest {

    @Test
    void holdsConnectionsOpenAndTricklesHeadersWithoutEverEndingTheRequest() throws Exception {
        AtomicInteger headerLines = new AtomicInteger();
        StringBuffer received = new StringBuffer();
        ConcurrentLinkedQueue<Socket> accepted = new ConcurrentLinkedQueue<>();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = server.accept();
                        accepted.add(s);
                        Thread reader = new Thread(() -> read(s, received, headerLines));
                        reader.setDaemon(true);
                        reader.start();
                    }
                } catch (Exception closed) {
                    // test over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            try (SlowClients slow = new SlowClients("127.0.0.1", server.getLocalPort(), "/", 3, 10)) {
                assertThat(slow.opened()).isEqualTo(3);
                await().atMost(Duration.ofSeconds(5)).until(() -> headerLines.get() >= 6);
                assertThat(accepted).hasSize(3);
                assertThat(received.toString()).startsWith("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                        .doesNotContain("\r\n\r\n");
            }
        }
        for (Socket s : accepted) {
            s.close();
        }
    }

    private static void read(Socket s, StringBuffer received, AtomicInteger headerLines) {
        try (InputStream in = s.getInputStream()) {
            byte[] buf = new byte[256];
            int n;
            while ((n = in.read(buf)) > 0) {
                String chunk = new String(buf, 0, n, java.nio.charset.StandardCharsets.US_ASCII);
                synchronized (received) {
                    if (received.length() < 40) {
                        received.append(chunk);
                    }
                }
                headerLines.addAndGet(chunk.split("X-Slow", -1).length - 1);
            }
        } catch (Exception closed) {
            // the client closed
        }
    }
}
