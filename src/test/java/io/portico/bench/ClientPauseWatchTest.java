package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The client's own collections, from the JVM's collector notifications. */
class ClientPauseWatchTest {

    @Test
    void aCollectionWhileCountingIsCounted() throws InterruptedException {
        try (ClientPauseWatch watch = new ClientPauseWatch()) {
            watch.begin();
            System.gc(); // a full, stop-the-world collection on every collector the tests run with
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (watch.pauses().count() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10); // notifications come on the JVM's service thread
            }
            ClientPauses pauses = watch.pauses();
            assertThat(pauses.known()).isTrue();
            assertThat(pauses.count()).isPositive();
            assertThat(pauses.totalMs()).isGreaterThanOrEqualTo(pauses.longestMs());
            watch.begin();
            assertThat(watch.pauses()).as("begin counts from zero").isEqualTo(new ClientPauses(0, 0, 0));
        }
    }

    @Test
    void concurrentCollectorBeansAreNotPauses() {
        assertThat(ClientPauseWatch.stopsTheWorld("G1 Young Generation")).isTrue();
        assertThat(ClientPauseWatch.stopsTheWorld("G1 Old Generation")).isTrue();
        assertThat(ClientPauseWatch.stopsTheWorld("Copy")).isTrue();
        assertThat(ClientPauseWatch.stopsTheWorld("ZGC Pauses")).isTrue();
        assertThat(ClientPauseWatch.stopsTheWorld("ZGC Cycles")).isFalse();
        assertThat(ClientPauseWatch.stopsTheWorld("Shenandoah Cycles")).isFalse();
        assertThat(ClientPauseWatch.stopsTheWorld("G1 Concurrent GC")).isFalse();
    }

    @Test
    void mergedRunsAddTheirPauses() {
        assertThat(new ClientPauses(2, 10, 7).plus(new ClientPauses(1, 9, 9))).isEqualTo(new ClientPauses(3, 19, 9));
        assertThat(new ClientPauses(2, 10, 7).plus(ClientPauses.UNKNOWN)).isEqualTo(ClientPauses.UNKNOWN);
    }
}
