package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class AssertionTest {

    /** 1000 responses over 2 s at 1..1000 ms, 10 of them 503s and 5 resets. */
    private static BenchResult result() {
        Histogram total = LoopStats.newHistogram();
        for (int ms = 1; ms <= 1000; ms++) {
            total.recordValue(ms * 1000L);
        }
        long[] v = new long[Tally.SIZE];
        v[Tally.RESPONSES] = 1000;
        v[Tally.SUCCESSES] = 990;
        v[Tally.ERRORS_BASE + ErrorClass.HTTP_503.ordinal()] = 10;
        v[Tally.ERRORS_BASE + ErrorClass.RESET.ordinal()] = 5;
        BenchOptions options = Runs.options("http://127.0.0.1:1/", 1, 0, Duration.ofSeconds(2), 0,
                Duration.ofSeconds(1));
        return new BenchResult(options, 2.0, new Tally(v), total, total, total, total, List.of(), List.of(), Map.of(),
                null, 0.1, -1, EnvironmentInfo.current(1, "nio"));
    }

    @Test
    void parsesUnitsIntoMilliseconds() {
        assertThat(Assertion.parse("p99<50ms").threshold()).isEqualTo(50);
        assertThat(Assertion.parse("p99 < 2s").threshold()).isEqualTo(2000);
        assertThat(Assertion.parse("max<=500us").threshold()).isEqualTo(0.5);
        assertThat(Assertion.parse("p50<3").threshold()).isEqualTo(3);
        assertThat(Assertion.parse("errors<0.1%").percent()).isTrue();
        assertThat(Assertion.parse("errors<5").percent()).isFalse();
        assertThat(Assertion.parse("availability>99.9%").percent()).isTrue();
    }

    @Test
    void rejectsWhatItCannotCheck() {
        assertThatThrownBy(() -> Assertion.parse("p98<5ms")).hasMessageContaining("expected: METRIC OP VALUE");
        assertThatThrownBy(() -> Assertion.parse("p99<5%")).hasMessageContaining("time unit");
        assertThatThrownBy(() -> Assertion.parse("rps>5ms")).hasMessageContaining("time unit");
        assertThatThrownBy(() -> Assertion.parse("p99<<5")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void evaluatesEachMetricAgainstTheRun() {
        BenchResult r = result();
        assertThat(Assertion.parse("p50<=501ms").failure(r)).isNull();
        assertThat(Assertion.parse("p99<50ms").failure(r)).contains("p99<50ms").contains("measured p99 = 99");
        assertThat(Assertion.parse("p999<1s").failure(r)).isNull();
        assertThat(Assertion.parse("max<1s").failure(r)).isNotNull();
        assertThat(Assertion.parse("rps>400").failure(r)).isNull();
        assertThat(Assertion.parse("rps>600").failure(r)).contains("measured rps = 500");
        // 15 failures out of 1005 attempts
        assertThat(Assertion.parse("errors<2%").failure(r)).isNull();
        assertThat(Assertion.parse("errors<1%").failure(r)).isNotNull();
        assertThat(Assertion.parse("errors<=15").failure(r)).isNull();
        assertThat(Assertion.parse("availability>98%").failure(r)).isNull();
        assertThat(Assertion.parse("availability>99.9%").failure(r)).contains("availability");
    }
}
