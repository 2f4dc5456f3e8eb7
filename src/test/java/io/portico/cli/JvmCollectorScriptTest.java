package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/lib/jvm-collector.sh, which bin/portico sources to size the heap: the CPUs the JVM will see, and an -Xmx that
 * keeps what {@code portico check} advises usable under the collector the JVM will run. Run by bash, as bin/portico
 * runs it, with real JVMs asked what they see.
 */
class JvmCollectorScriptTest {

    private static final Path LIB = Path.of("bin/lib/jvm-collector.sh").toAbsolutePath();

    /** Sources the library and runs {@code script} (its functions and arguments) in bash; returns stdout, trimmed. */
    private static String bash(String script) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-c", ". \"$0\"; " + script, LIB.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("exit status of: %s", script).isZero();
        return out;
    }

    @Test
    void theHeapGrowsOnlyWhereTheCollectorKeepsASurvivorSpaceOutOfIt() throws Exception {
        assertThat(bash("heap_for_collector 320 2 '-XX:+UseSerialGC'")).isEqualTo("352");
        assertThat(bash("heap_for_collector 320 4 '-XX:+UseParallelGC'")).isEqualTo("352");
        // Naming none on one CPU, the JVM picks Serial itself; on two or more, G1.
        assertThat(bash("heap_for_collector 320 1 ''")).isEqualTo("352");
        assertThat(bash("heap_for_collector 320 2 ''")).isEqualTo("320");
        assertThat(bash("heap_for_collector 320 1 '-XX:+UseG1GC'")).isEqualTo("320");
        assertThat(bash("heap_for_collector 96 '' '-XX:+UseZGC'")).isEqualTo("96");
    }

    @Test
    void theCpuCountIsTheJvmsOwnWithTheSameOptions() throws Exception {
        assertThat(bash("jvm_cpus '-XX:ActiveProcessorCount=3'")).isEqualTo("3");
        assertThat(bash("jvm_cpus ''")).isEqualTo(String.valueOf(Runtime.getRuntime().availableProcessors()));
    }

    @Test
    void theCpuCountFollowsTheAffinityTheJvmStartsWith() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/taskset")), "taskset (util-linux) is not installed");
        Process p = new ProcessBuilder("taskset", "-c", "0", "bash", "-c", ". \"$0\"; jvm_cpus ''", LIB.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).isEqualTo("1");
    }

    @Test
    void theHeapChosenForSerialHoldsTheAdviceUsable(@TempDir Path dir) throws Exception {
        long advisedMib = 313;
        int mib = Integer.parseInt(bash("heap_for_collector 320 2 '-XX:+UseSerialGC'"));
        // What the JVM then calls its maximum, which PorticoServer compares with the advice at start.
        Path probe = Files.writeString(dir.resolve("MaxHeap.java"),
                "class MaxHeap { public static void main(String[] a) {"
                        + " System.out.println(Runtime.getRuntime().maxMemory() >> 20); } }");
        Process p = new ProcessBuilder("java", "-Xmx" + mib + "m", "-XX:+UseSerialGC", probe.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String usable = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(Long.parseLong(usable)).isGreaterThanOrEqualTo(advisedMib);
    }
}
