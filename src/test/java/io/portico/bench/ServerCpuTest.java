package io.portico.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerCpuTest {

    @Test
    void readsAProcesssCpuFromProcAndChargesEachSideItsRounds() {
        long self = ProcessHandle.current().pid();
        assertThat(ServerCpu.seconds(self)).isPositive();
        assertThat(ServerCpu.seconds(Long.MAX_VALUE)).isEqualTo(-1);

        ServerCpu cpu = new ServerCpu(List.of("this JVM"), self);
        cpu.started(false);
        cpu.finished(false); // A: next to nothing
        cpu.started(true);
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + 300_000_000L;
        double sink = 0;
        while (threads.getCurrentThreadCpuTime() < until) { // B: 0.3 s of CPU, well above /proc's 10 ms ticks
            sink += Math.sqrt(sink + 1);
        }
        cpu.finished(true);
        assertThat(sink).isPositive();
        CompareResult c = new CompareResult("direct", "proxied", List.of(ReportFixtures.result(1000, 1)),
                List.of(ReportFixtures.result(1000, 1)), null);
        String note = cpu.note(c);
        assertThat(note).startsWith("Server CPU per response (user + system, /proc, around each round): direct: "
                + "this JVM ").contains("; proxied: this JVM ");
        long proxiedUs = Long.parseLong(note.replaceAll(".*proxied: this JVM (\\d+) us\\.$", "$1"));
        assertThat(proxiedUs).as(note).isGreaterThanOrEqualTo(250); // >= 0.25 s over 1000 responses
    }

    @Test
    void saysNothingWhenAProcessCannotBeRead() {
        ServerCpu cpu = new ServerCpu(List.of("gone"), Long.MAX_VALUE);
        cpu.started(false);
        cpu.finished(false);
        assertThat(cpu.note(new CompareResult("a", "b", List.of(ReportFixtures.result(1, 1)),
                List.of(ReportFixtures.result(1, 1)), null))).isNull();
    }
}
