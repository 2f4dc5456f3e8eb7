package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeepAliveTest {

    private static BenchResult run(String url, boolean keepAlive) throws InterruptedException {
        return Runs.run(new BenchOptions(List.of(RequestTarget.of(url, "GET", null)), 2, 20, 0, null, keepAlive,
                List.of(), Duration.ZERO, Duration.ofSeconds(2), Duration.ofSeconds(2), 0, List.of(), 1));
    }

    @Test
    void keepAliveReusesOneConnectionPerClientAndNoKeepAliveReconnectsEveryTime() throws Exception {
        try (StubServer server = new StubServer(StubServer.Behavior.OK)) {
            BenchResult kept = run(server.url("/"), true);
            assertThat(kept.tally().successes()).isEqualTo(20);
            assertThat(kept.tally().connections()).isEqualTo(2);
            BenchResult closed = run(server.url("/"), false);
            assertThat(closed.tally().successes()).isEqualTo(20);
            assertThat(closed.tally().connections()).as("Connection: close on every request").isEqualTo(20);
            assertThat(closed.tally().errors()).isZero();
            assertThat(closed.connect().getMaxValue()).isGreaterThan(0);
        }
    }

    @Test
    void scenarioTableShowsEachRowsOwnMetricsInItsHeadline() {
        BenchResult r = ReportFixtures.result(100, 5);
        BenchResult better = ReportFixtures.result(200, 1);
        String table = BuiltInScenarios.table(List.of(new Scenario("flood",
                new CompareResult("no limit", "limited", List.of(r), List.of(better), null),
                List.of(CompareMetric.P99, CompareMetric.AVAILABILITY), List.of(), List.of())));
        assertThat(table).contains("flood  [A: no limit, B: limited]").contains("gain: p99 x0.20, availability x1.00");
    }
}
