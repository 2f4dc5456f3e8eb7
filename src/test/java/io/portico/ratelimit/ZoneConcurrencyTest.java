package io.portico.ratelimit;

import static io.portico.ratelimit.Zones.SECOND;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Requests of one client racing on many threads never get more than the bucket holds. */
class ZoneConcurrencyTest {
    private static final int THREADS = 64;
    private static final int TRIALS = 50;

    private final ExecutorService threads = Executors.newFixedThreadPool(THREADS);

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void sixtyFourThreadsAtOnceGetExactlyTheBurst(StoreKind kind) throws Exception {
        ManualClock clock = new ManualClock();
        for (int trial = 0; trial < TRIALS; trial++) {
            ZoneStore store = kind.create(Zones.nodelay(10, SECOND, 5), clock);
            CyclicBarrier start = new CyclicBarrier(THREADS);
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                results.add(threads.submit(() -> {
                    start.await();
                    return store.take(ClientKey.ipv4(0x7f000001), clock.nanoTime()) >= 0;
                }));
            }
            int passed = 0;
            for (Future<Boolean> result : results) {
                passed += result.get() ? 1 : 0;
            }
            assertThat(passed).as("trial %d", trial).isEqualTo(6);
        }
    }
}
