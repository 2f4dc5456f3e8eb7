package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class StallDetectorTest {

    private static final BenchOptions CLOSED = Runs.options("http://127.0.0.1:1/", 10, 0, Duration.ofSeconds(5), 0,
            Duration.ofSeconds(1));

    private static IntervalSample second(int t, long responses) {
        return new IntervalSample(t, 1.0, responses, 0, 0, 1, 2, 3);
    }

    @Test
    void aMaxFarAboveTheMedianSuggestsAnOpenLoopRun() {
        Histogram h = LoopStats.newHistogram();
        for (int i = 0; i < 1000; i++) {
            h.recordValue(1_000);
        }
        h.recordValue(1_000_000);
        List<String> w = StallDetector.warnings(CLOSED, h, List.of(second(0, 1000), second(1, 1000)));
        assertThat(w).singleElement().asString().contains("looks stalled").contains("-R 800");
    }

    @Test
    void aSecondAtLessThanHalfTheMedianRateIsAStall() {
        Histogram h = LoopStats.newHistogram();
        h.recordValue(1_000);
        List<String> w = StallDetector.warnings(CLOSED, h,
                List.of(second(0, 1000), second(1, 300), second(2, 1000), second(3, 1000)));
        assertThat(w).singleElement().asString().contains("one second ran 300 req/s against a median of 1000");
    }

    @Test
    void steadyRunsAndOpenLoopRunsGetNoWarning() {
        Histogram h = LoopStats.newHistogram();
        h.recordValue(1_000);
        h.recordValue(2_000);
        List<IntervalSample> steady = List.of(second(0, 1000), second(1, 900), second(2, 1000));
        assertThat(StallDetector.warnings(CLOSED, h, steady)).isEmpty();
        BenchOptions open = Runs.options("http://127.0.0.1:1/", 10, 0, Duration.ofSeconds(5), 100,
                Duration.ofSeconds(1));
        h.recordValue(10_000_000);
        assertThat(StallDetector.warnings(open, h, steady)).isEmpty();
    }
}
