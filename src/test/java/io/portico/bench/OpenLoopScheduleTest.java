package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OpenLoopScheduleTest {

    @Test
    void requestsFallDueAtStartPlusIOverRate() {
        OpenLoopSchedule s = new OpenLoopSchedule(1_000, 100, Long.MAX_VALUE); // every 10 ms
        assertThat(s.dueBy(999)).isZero();
        assertThat(s.dueBy(1_000)).isEqualTo(1);
        assertThat(s.dueBy(1_000 + 25_000_000)).isEqualTo(3);
        assertThat(s.take()).isEqualTo(1_000);
        assertThat(s.take()).isEqualTo(1_000 + 10_000_000);
        assertThat(s.backlog(1_000 + 25_000_000)).isEqualTo(1);
        assertThat(s.nextDue()).isEqualTo(1_000 + 20_000_000);
    }

    @Test
    void aLongStallIsABacklogOfIndicesNotMemory() {
        OpenLoopSchedule s = new OpenLoopSchedule(0, 1_000_000, 5);
        assertThat(s.backlog(3_600_000_000_000L)).isEqualTo(5);
        for (int i = 0; i < 5; i++) {
            s.take();
        }
        assertThat(s.exhausted()).isTrue();
    }

    @Test
    void aStallShowsInThePercentilesWhenLatencyCountsFromTheIntendedTime() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.STALL_ONCE, "ok", 200, 1000)) {
            BenchResult r = Runs.run(Runs.options(server.url("/"), 10, 0, Duration.ofSeconds(3), 200,
                    Duration.ofSeconds(5)));
            long sent = r.tally().responses() + r.tally().unsent();
            assertThat(sent).as("~3 s at 200/s, whatever the stall").isBetween(520L, 640L);
            // ~200 of ~600 requests were due during the 1 s stall: a third of the run waited 0..1 s
            assertThat(r.latencyMs(99)).isGreaterThanOrEqualTo(500);
            assertThat(r.latencyMs(75)).isGreaterThanOrEqualTo(100);
            assertThat(r.tally().errors()).isZero();
        }
    }
}
