package io.portico.ratelimit;

import io.portico.config.RateLimitZoneConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Memory per client: {@code main} fills a zone with 1,000,000 distinct IPv4 clients and prints the retained heap
 * per client (used heap after full GCs, before and after; target: at most 128 bytes), for both stores; then the
 * JMH part times filling a zone with those clients from empty (the cost of a spray of new addresses).
 *
 * <p>Run: {@code java -Xmx2g -cp ... io.portico.ratelimit.ZoneMemoryBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class ZoneMemoryBenchmark {
    static final int CLIENTS = 1_000_000;

    @Param({"COMPACT", "BUCKET4J"})
    String store;

    static RateLimitZoneConfig zone() {
        return new RateLimitZoneConfig(
                "allips", "client-ip", 50, Duration.ofSeconds(1), 20, true, 0, 429, CLIENTS, false, 64,
                RateLimitZoneConfig.Headers.ON_REJECT);
    }

    static ZoneStore fill(StoreKind kind) {
        long now = System.nanoTime();
        ZoneStore zone = kind.create(zone(), () -> now); // frozen: nobody expires while we count
        for (int i = 0; i < CLIENTS; i++) {
            zone.take(ClientKey.ipv4(0x0a000000 + i), now);
        }
        zone.cleanUp();
        return zone;
    }

    @Benchmark
    public ZoneStore fillAMillionClients() {
        return fill(StoreKind.valueOf(store));
    }

    static long usedAfterGc() {
        Runtime runtime = Runtime.getRuntime();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, runtime.totalMemory() - runtime.freeMemory());
        }
        return used;
    }

    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        for (StoreKind kind : StoreKind.values()) {
            if (kind == StoreKind.REDIS) {
                continue; // its clients are in Redis
            }
            fill(kind); // warm the code and the sizing of the heap
            long before = usedAfterGc();
            ZoneStore zone = fill(kind);
            long after = usedAfterGc();
            System.out.printf("%s: %,d clients, %.1f bytes per client retained%n",
                    kind, zone.size(), (after - before) / (double) CLIENTS);
        }
        if (args.length == 0 || !args[0].equals("--memory-only")) {
            new Runner(new OptionsBuilder()
                    .parent(new CommandLineOptions(args))
                    .include(ZoneMemoryBenchmark.class.getSimpleName())
                    .build()).run();
        }
    }
}
