package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompareAssertionTest {

    /** A: 100 responses at 5 ms; B: 200 at 1 ms (both over 1 s). */
    private static final CompareResult C = new CompareResult("A", "B", List.of(ReportFixtures.result(100, 5)),
            List.of(ReportFixtures.result(200, 1)), null);

    @Test
    void ratiosAreBOverA() {
        AssertionResult rps = CompareAssertion.parse("ratio(rps)>=0.9").check(C);
        assertThat(rps.passed()).isTrue();
        assertThat(rps.measured()).isEqualTo(2.0);
        assertThat(rps.line()).isEqualTo("pass  ratio(rps)>=0.9  (measured B/A rps = 2x, expected >= 0.9x)");
        assertThat(CompareAssertion.parse("ratio(throughput) >= 2.5").check(C).passed()).isFalse();
        assertThat(CompareAssertion.parse("ratio(p99)<=0.2").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("ratio(p99)<0.2").check(C).failure())
                .isEqualTo("assertion failed: ratio(p99)<0.2 (measured B/A p99 = 0.2x, expected < 0.2x)");
    }

    @Test
    void aSideTakesAnyBenchAssertion() {
        assertThat(CompareAssertion.parse("b.p99<2ms").check(C).passed()).isTrue();
        assertThat(CompareAssertion.parse("a.p99<2ms").check(C).failure())
                .isEqualTo("assertion failed: a.p99<2ms (measured p99 = 5.003 ms, expected < 2 ms)");
        assertThat(CompareAssertion.parse("a.rps>=100").check(C).passed()).isTrue();
    }

    @Test
    void aRefusedComparisonHasNoRatioToPass() {
        CompareResult refused = new CompareResult("A", "B", C.roundsA(), C.roundsB(), "A and B answer differently");
        AssertionResult r = CompareAssertion.parse("ratio(rps)>=0.1").check(refused);
        assertThat(r.passed()).isFalse();
        assertThat(r.measured()).isNaN();
        assertThat(r.line()).isEqualTo("FAIL  ratio(rps)>=0.1  (not measured: no ratio, A and B answer differently)");
        CompareResult errorsFromZero = C;
        assertThat(CompareAssertion.parse("ratio(errors)<=1").check(errorsFromZero).reason())
                .isEqualTo("A's errors is 0");
    }

    @Test
    void rejectsAnAssertionThatDoesNotSayWhichSideOrRatio() {
        assertThatThrownBy(() -> CompareAssertion.parse("p99<5ms")).hasMessageContaining(
                "expected: ratio(METRIC) OP NUMBER for B/A").hasMessageContaining("b.p99<5ms");
        assertThatThrownBy(() -> CompareAssertion.parse("ratio(p98)>1")).hasMessageContaining(
                "METRIC one of rps p50 p90 p99 p999 max availability errors");
        assertThatThrownBy(() -> CompareAssertion.parse("ratio(p99)<5ms")).hasMessageContaining("ratio(METRIC)");
        assertThatThrownBy(() -> CompareAssertion.parse("b.p98<5ms")).hasMessageStartingWith("assert: b.p98<5ms");
    }
}
