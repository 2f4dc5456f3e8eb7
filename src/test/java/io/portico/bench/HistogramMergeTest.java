package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class HistogramMergeTest {

    @Test
    void perLoopHistogramsMergeToThePercentilesOfAllValues() {
        Map<ErrorClass, String> messages = LoopStats.newMessageMap();
        List<LoopStats> loops = List.of(new LoopStats(messages), new LoopStats(messages), new LoopStats(messages));
        Histogram reference = LoopStats.newHistogram();
        Random random = new Random(42);
        for (int i = 0; i < 30_000; i++) {
            // each loop sees a different latency range: only a correct merge gets the overall percentiles right
            int loop = i % 3;
            long us = 100L * (loop + 1) + random.nextInt(1000 * (loop + 1));
            loops.get(loop).response(200, us * 1000, 0, us * 1000, 10);
            reference.recordValue(us);
        }
        BenchOptions options = Runs.options("http://127.0.0.1:1/", 3, 0, Duration.ofSeconds(5), 0,
                Duration.ofSeconds(1));
        Collector collector = new Collector(loops, new RunClock(options, 0), null);
        collector.tick(500_000_000L);
        loops.get(1).response(200, 5_000_000_000L, 0, 0, 10); // one 5 s outlier after the first tick
        reference.recordValue(5_000_000);
        collector.finish(1_000_000_000L);

        Histogram merged = collector.total();
        assertThat(merged.getTotalCount()).isEqualTo(reference.getTotalCount());
        for (double p : new double[] {50, 90, 99, 99.9, 100}) {
            assertThat(merged.getValueAtPercentile(p)).as("p%s", p).isEqualTo(reference.getValueAtPercentile(p));
        }
        assertThat(merged.getMaxValue()).isEqualTo(reference.getMaxValue());
        assertThat(collector.tally().responses()).isEqualTo(30_001);
        assertThat(collector.tally().bytes()).isEqualTo(300_010);
        assertThat(collector.timeline()).hasSize(2);
        assertThat(collector.timeline().get(1).maxMs()).isCloseTo(5000, within(5.0));
    }

    @Test
    void warmupIsDiscarded() {
        Map<ErrorClass, String> messages = LoopStats.newMessageMap();
        LoopStats loop = new LoopStats(messages);
        BenchOptions base = Runs.options("http://127.0.0.1:1/", 1, 0, Duration.ofSeconds(5), 0, Duration.ofSeconds(1));
        BenchOptions options = new BenchOptions(base.targets(), 1, 0, 0, base.duration(), true, List.of(),
                Duration.ofSeconds(1), base.timeout(), base.connectTimeout(), 0, List.of(), 1);
        Collector collector = new Collector(List.of(loop), new RunClock(options, 0), null);
        loop.response(200, 900_000_000L, 0, 0, 1); // during warm-up
        collector.discardWarmup(1_000_000_000L);
        loop.response(200, 1_000_000L, 0, 0, 1);
        collector.finish(2_000_000_000L);
        assertThat(collector.tally().responses()).isEqualTo(1);
        assertThat(collector.total().getMaxValue()).isLessThan(2_000);
    }

    @Test
    void clientSideFailuresStopTheRunWithTheClientsFix() {
        LoopStats loop = new LoopStats(LoopStats.newMessageMap());
        BenchOptions options = Runs.options("http://127.0.0.1:1/", 1, 0, Duration.ofSeconds(5), 0,
                Duration.ofSeconds(1));
        Collector collector = new Collector(List.of(loop), new RunClock(options, 0), null);
        for (int i = 0; i < 20; i++) {
            loop.error(ErrorClass.CLIENT_OUT_OF_FILES, new java.io.IOException("Too many open files"));
        }
        loop.response(200, 1_000_000, 0, 0, 1);
        collector.tick(1_000_000_000L);
        assertThat(collector.earlyStopReason()).contains("CLIENT").contains("not a server failure")
                .contains("ulimit -n");
    }

    @Test
    void aServerRefusingEverythingStopsTheRunAfterTwoSeconds() {
        LoopStats loop = new LoopStats(LoopStats.newMessageMap());
        BenchOptions options = Runs.options("http://127.0.0.1:1/", 1, 0, Duration.ofSeconds(5), 0,
                Duration.ofSeconds(1));
        Collector collector = new Collector(List.of(loop), new RunClock(options, 0), null);
        loop.error(ErrorClass.CONNECT_REFUSED, new java.net.ConnectException("Connection refused"));
        collector.tick(1_000_000_000L);
        assertThat(collector.earlyStopReason()).isNull();
        loop.error(ErrorClass.CONNECT_REFUSED, new java.net.ConnectException("Connection refused"));
        collector.tick(2_000_000_000L);
        assertThat(collector.earlyStopReason()).contains("every connection was refused");
    }
}
