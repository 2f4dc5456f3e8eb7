package io.portico.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;

/** Runs a benchmark in a test with one client loop and no progress output. */
final class Runs {

    private Runs() {
    }

    static BenchOptions options(String url, int connections, long requests, Duration duration, double rate,
            Duration timeout) {
        return new BenchOptions(List.of(RequestTarget.of(url, "GET", null)), connections, requests, 0, duration, true,
                List.of(), Duration.ZERO, timeout, Duration.ofSeconds(2), rate, List.of(), 1);
    }

    static BenchResult run(BenchOptions options) throws InterruptedException {
        try (ClientLoops loops = new ClientLoops(options.threads())) {
            return new BenchRun(options, loops, null, new PrintWriter(new StringWriter())).run();
        }
    }
}
