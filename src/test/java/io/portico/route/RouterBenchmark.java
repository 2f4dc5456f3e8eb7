package io.portico.route;

import io.portico.config.LocationConfig;
import io.portico.config.TargetConfig;
import io.portico.config.TextTemplate;
import io.portico.exchange.Route;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of choosing a location as the configuration grows: {@code locations} prefix locations
 * ({@code /app0/api/}, {@code /app1/api/}, ...) besides {@code /}, and a request that matches one of them or falls
 * through to {@code /}. Run: {@code java -cp target/test-classes:target/classes:$(cat cp.txt) org.openjdk.jmh.Main
 * RouterBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RouterBenchmark {
    @Param({"1", "1000", "10000"})
    int locations;

    Router router;
    String hit;
    String fallThrough = "/index.html";

    @Setup
    public void build() {
        List<LocationConfig> all = new ArrayList<>();
        TargetConfig target = new TargetConfig.Return(200, Optional.empty(), TextTemplate.literal("ok"));
        for (int i = 0; i < locations; i++) {
            all.add(new LocationConfig(new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, "/app" + i + "/api/"),
                    target, List.of(), List.of(), "bench"));
        }
        all.add(new LocationConfig(new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, "/"), target, List.of(),
                List.of(), "bench"));
        router = Router.build(all, l -> null);
        hit = "/app" + (locations / 2) + "/api/users/42";
    }

    @Benchmark
    public Route fallsThroughToRoot() {
        return router.match(fallThrough);
    }

    @Benchmark
    public Route matchesAPrefix() {
        return router.match(hit);
    }
}
