package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompareAssertionTest {

    /** A: 100 responses at 5 ms; B: 200 at 1 ms (both over 1 s). */
    private static final CompareResult C = new CompareResult("A", "B", List.of(ReportFixtures.result(100, 5)),
            List.of(ReportFixtures.result(200, 1)), null);

    private static final String METRICS = "METRIC one of throughput (or rps), p50, p90, p99, p999, max, "
            + "availability, errors, bytes";

    @Test
    void aBareBoundWithoutAUnitIsTheRatioBOverA() {
        AssertionResult throughput = CompareAssertion.parse("throughput>=0.9").check(C);
        assertThat(throughput.passed()).isTrue();
        assertThat(throughput.measured()).isEqualTo(2.0);
        assertThat(throughput.line())
                .isEqualTo("pass  throughput>=0.9  (measured B/A rps = 2x, expected >= 0.9x)");
        assertThat(CompareAssertion.parse("rps >= 2.5").check(C).failure())
                .isEqualTo("assertion failed: rps >= 2.5 (measured B/A rps = 2x, expected >= 2.5x)");
        assertThat(CompareAssertion.parse("p99<=1.2").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("p99<=1.2").check(C).measured()).isEqualTo(0.2, within(0.001));
        assertThat(CompareAssertion.parse("P50 > .5").check(C).passed()).isFalse();
        assertThat(CompareAssertion.parse("max<1").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("availability>=1").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("p999<0.1").check(C).failure())
                .startsWith("assertion failed: p999<0.1 (measured B/A p999 = 0.2x");
        assertThat(CompareAssertion.parse("errors<=1").check(C).reason()).isEqualTo("A's errors is 0");
    }

    @Test
    void ratioOfIsTheSameRatioSpelledOut() {
        AssertionResult rps = CompareAssertion.parse("ratio(rps)>=0.9").check(C);
        assertThat(rps.passed()).isTrue();
        assertThat(rps.measured()).isEqualTo(2.0);
        assertThat(rps.line()).isEqualTo("pass  ratio(rps)>=0.9  (measured B/A rps = 2x, expected >= 0.9x)");
        assertThat(CompareAssertion.parse("ratio(throughput) >= 2.5").check(C).passed()).isFalse();
        assertThat(CompareAssertion.parse("ratio(p99)<=0.2").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("ratio(p99)<0.2").check(C).failure())
                .isEqualTo("assertion failed: ratio(p99)<0.2 (measured B/A p99 = 0.2x, expected < 0.2x)");
        assertThat(CompareAssertion.parse("ratio( p99 )<0.3").check(C).passed()).isTrue();
    }

    @Test
    void aSideTakesAnyBenchAssertion() {
        assertThat(CompareAssertion.parse("b.p99<2ms").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("a.p99<2ms").check(C).failure())
                .isEqualTo("assertion failed: a.p99<2ms (measured p99 = 5.003 ms, expected < 2 ms)");
        assertThat(CompareAssertion.parse("a.rps>=100").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("b.rps>=150").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("b.errors<0.1%").check(C).passed()).isTrue();
    }

    @Test
    void aRefusedComparisonHasNoRatioToPass() {
        CompareResult refused = new CompareResult("A", "B", C.roundsA(), C.roundsB(), "A and B answer differently");
        for (String text : List.of("ratio(rps)>=0.1", "throughput>=0.1")) {
            AssertionResult r = CompareAssertion.parse(text).check(refused);
            assertThat(r.passed()).isFalse();
            assertThat(r.measured()).isNaN();
            assertThat(r.line()).isEqualTo("FAIL  " + text + "  (not measured: no ratio, A and B answer differently)");
        }
        assertThat(CompareAssertion.parse("b.rps>=150").check(refused).passed()).isTrue();
    }

    @Test
    void aBareBoundWithAUnitIsRefusedWithBothWaysToWriteIt() {
        assertThatThrownBy(() -> CompareAssertion.parse("p99<5ms")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("assert: p99<5ms (expected: no unit on a ratio B/A; write b.p99<5ms for B's own p99, "
                        + "or p99<=1.2 for a ratio)");
        assertThatThrownBy(() -> CompareAssertion.parse("p99 < 5 ms")).hasMessage("assert: p99 < 5 ms (expected: "
                + "no unit on a ratio B/A; write b.p99<5ms for B's own p99, or p99<=1.2 for a ratio)");
        assertThatThrownBy(() -> CompareAssertion.parse("errors<1%")).hasMessage("assert: errors<1% (expected: "
                + "no unit on a ratio B/A; write b.errors<1% for B's own errors, or errors<=1.2 for a ratio)");
        assertThatThrownBy(() -> CompareAssertion.parse("availability>99.9%")).hasMessageEndingWith(
                "write b.availability>99.9% for B's own availability, or availability>=0.9 for a ratio)");
        assertThatThrownBy(() -> CompareAssertion.parse("ratio(p99)<5ms")).hasMessage("assert: ratio(p99)<5ms "
                + "(expected: no unit on a ratio B/A; write b.p99<5ms for B's own p99, or p99<=1.2 for a ratio)");
    }

    @Test
    void anUnknownMetricNamesTheMetricsThatExist() {
        assertThatThrownBy(() -> CompareAssertion.parse("ratio(p98)>1")).hasMessage("assert: ratio(p98)>1 "
                + "(expected: ratio(METRIC) with " + METRICS + ", or a.EXPR / b.EXPR for any 'portico bench "
                + "--assert' bound on one side)");
        // mean and p9999 are bench bounds but not compared figures: one side only.
        assertThatThrownBy(() -> CompareAssertion.parse("mean<=1.2")).hasMessage("assert: mean<=1.2 (expected: "
                + "METRIC with " + METRICS + ", or a.EXPR / b.EXPR for any 'portico bench --assert' bound on one "
                + "side)");
        assertThat(CompareAssertion.parse("b.mean<2ms").check(C).passed()).isTrue();
    }

    @Test
    void anythingElseIsRefusedWithEveryForm() {
        String expected = "(expected: METRIC OP NUMBER for the ratio B/A, e.g. throughput>=0.9 or p99<=1.2, or "
                + "a.EXPR / b.EXPR for one side, e.g. b.p99<5ms; " + METRICS + ")";
        for (String text : List.of("p99", "p99=1", "ratio(p99<1", "p99)<1", "c.p99<5ms", "p99<=fast", "")) {
            assertThatThrownBy(() -> CompareAssertion.parse(text)).as(text).hasMessage("assert: " + text + " "
                    + expected);
        }
        assertThatThrownBy(() -> CompareAssertion.parse("b.p98<5ms")).hasMessageStartingWith("assert: b.p98<5ms");
        assertThatThrownBy(() -> CompareAssertion.parse("b.p99<5%")).hasMessage("assert: b.p99<5% (expected: a "
                + "time unit for latencies, % or none for others)");
    }
}
