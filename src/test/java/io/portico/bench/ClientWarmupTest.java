package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ClientWarmupTest {

    @Test
    void theWarmupLoadsItsOwnResponderAndNeverTheServerUnderTest() throws Exception {
        try (ServerSocket target = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                ClientLoops loops = new ClientLoops(1)) {
            AtomicInteger accepted = countAccepts(target);
            BenchOptions options = Runs.options("http://127.0.0.1:" + target.getLocalPort() + "/", 8, 0,
                    Duration.ofSeconds(1), 0, Duration.ofSeconds(2));

            BenchResult warmup = ClientWarmup.run(loops, options);

            long rounds = warmup.tally().responses() / ClientWarmup.REQUESTS;
            assertThat(warmup.tally().responses()).as("whole rounds").isEqualTo(rounds * ClientWarmup.REQUESTS);
            assertThat(rounds).isBetween(1L, (long) ClientWarmup.MAX_ROUNDS);
            assertThat(warmup.tally().connections()).as("kept alive through a round").isEqualTo(8 * rounds);
            assertThat(warmup.tally().errors()).isZero();
            assertThat(warmup.options().connections()).isEqualTo(8);
            assertThat(accepted).hasValue(0);
        }
    }

    @Test
    void withoutKeepAliveEveryWarmupRequestIsItsOwnConnectionAndThereAreFewer() throws Exception {
        BenchOptions options = new BenchOptions(List.of(RequestTarget.of("http://127.0.0.1:1/", "GET", null)), 500,
                0, 0, null, false, List.of(), Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(2), 0,
                List.of(), 1);
        try (ClientLoops loops = new ClientLoops(1)) {
            BenchResult warmup = ClientWarmup.run(loops, options);

            assertThat(warmup.tally().responses()).isEqualTo(ClientWarmup.REQUESTS_NO_KEEPALIVE);
            assertThat(warmup.tally().connections()).isEqualTo(ClientWarmup.REQUESTS_NO_KEEPALIVE);
            assertThat(warmup.tally().errors()).isZero();
            assertThat(warmup.options().connections()).as("capped").isEqualTo(64);
            assertThat(warmup.options().keepAlive()).isFalse();
        }
    }

    private static AtomicInteger countAccepts(ServerSocket server) {
        AtomicInteger accepted = new AtomicInteger();
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    accepted.incrementAndGet();
                    s.shutdownOutput(); // nothing is ever answered here
                } catch (IOException closed) {
                    return;
                }
            }
        }, "accept-counter");
        t.setDaemon(true);
        t.start();
        return accepted;
    }
}
