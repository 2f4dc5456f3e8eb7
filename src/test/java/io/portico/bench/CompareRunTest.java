package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompareRunTest {

    private static CompareResult compare(String a, String b) throws InterruptedException {
        BenchOptions options = Runs.options(a, 2, 50, null, 0, Duration.ofSeconds(2));
        try (ClientLoops loops = new ClientLoops(1)) {
            return new CompareRun(options, RequestTarget.of(a, "GET", null), RequestTarget.of(b, "GET", null), 2,
                    loops, null, new PrintWriter(new StringWriter())).run("A", "B");
        }
    }

    @Test
    void refusesARatioWhenAAndBAnswerDifferently() throws Exception {
        try (StubServer a = new StubServer(StubServer.Behavior.OK, "short", 200, 0);
                StubServer b = new StubServer(StubServer.Behavior.OK, "a much longer body", 200, 0)) {
            CompareResult c = compare(a.url("/"), b.url("/"));
            assertThat(c.refusal()).contains("answer differently").contains("5 body bytes")
                    .contains("18 body bytes");
            String report = CompareReport.render(c);
            assertThat(report).contains("no ratio: A and B answer differently").doesNotContain("gain:");
            assertThat(c.roundsA()).hasSize(2);
            assertThat(c.roundsB()).hasSize(2);
        }
    }

    @Test
    void printsRatiosAndSpreadWhenBothAnswerAlike() throws Exception {
        try (StubServer a = new StubServer(StubServer.Behavior.OK, "same", 200, 0);
                StubServer b = new StubServer(StubServer.Behavior.OK, "same", 200, 0)) {
            CompareResult c = compare(a.url("/"), b.url("/"));
            assertThat(c.roundRatios(CompareMetric.THROUGHPUT)).hasSize(2);
            assertThat(c.a().tally().responses()).isEqualTo(100);
            String report = CompareReport.render(c);
            if (c.refusal() == null) {
                assertThat(report).contains("gain: throughput x").contains(", p99 x").contains("..");
            } else {
                // on a saturated machine the single client loop may be the bottleneck: then it must say so
                assertThat(c.refusal()).contains("client");
            }
            assertThat(JsonReport.renderCompare(c, "cmd")).contains("\"ratios_b_over_a\"").contains("\"per_round\"");
            assertThat(MiniJson.parse(JsonReport.renderCompare(c, "cmd"))).isInstanceOf(Map.class);
        }
    }

    @Test
    void aBusyOrFailingClientIsNamedAsTheBottleneck() {
        BenchResult busy = result(0.97, 0);
        BenchResult failing = result(0.1, 3);
        BenchResult fine = result(0.5, 0);
        assertThat(CompareRun.clientBound(List.of(fine, busy), "B")).contains("client was the bottleneck")
                .contains("97% busy");
        assertThat(CompareRun.clientBound(List.of(failing), "A")).contains("client hit its own limits")
                .contains("Too many open files");
        assertThat(CompareRun.clientBound(List.of(fine), "A")).isNull();
    }

    @Test
    void headlineUsesRatiosOfMergedRounds() {
        CompareResult c = new CompareResult("A", "B", List.of(result(0.1, 0)), List.of(result(0.1, 0)), null);
        assertThat(CompareReport.headline(c)).isEqualTo("gain: throughput x1.00, p99 x1.00");
        assertThat(CompareReport.times(12.43)).isEqualTo("x12.4");
        assertThat(CompareReport.times(0.08)).isEqualTo("x0.08");
    }

    private static BenchResult result(double busy, long clientErrors) {
        org.HdrHistogram.Histogram h = LoopStats.newHistogram();
        h.recordValue(1000);
        long[] v = new long[Tally.SIZE];
        v[Tally.RESPONSES] = 10;
        v[Tally.SUCCESSES] = 10;
        v[Tally.ERRORS_BASE + ErrorClass.CLIENT_OUT_OF_FILES.ordinal()] = clientErrors;
        return new BenchResult(Runs.options("http://127.0.0.1:1/", 1, 10, null, 0, Duration.ofSeconds(1)), 1,
                new Tally(v), h, h, h, h, List.of(), List.of(), Map.of(), null, busy, -1,
                EnvironmentInfo.current(1, "nio"));
    }
}
