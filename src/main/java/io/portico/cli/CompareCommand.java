package io.portico.cli;

import io.portico.bench.AssertionResult;
import io.portico.bench.BenchOptions;
import io.portico.bench.BuiltInScenarios;
import io.portico.bench.ClientLoops;
import io.portico.bench.ClientWarmup;
import io.portico.bench.CompareAssertion;
import io.portico.bench.CompareMetric;
import io.portico.bench.CompareReport;
import io.portico.bench.CompareResult;
import io.portico.bench.CompareRun;
import io.portico.bench.HtmlReport;
import io.portico.bench.JsonReport;
import io.portico.bench.RequestTarget;
import io.portico.bench.Scenario;
import io.portico.bench.ServerCpu;
import io.portico.bench.SharedMachine;
import io.portico.transport.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code portico bench compare --a URL --b URL [load options]}: the same load against both, interleaved rounds,
 * B/A with its spread. Without URLs: the built-in scenarios (demo app direct vs behind Portico). Exit codes as
 * {@link BenchCommand}'s: 0 done, 1 a side got no response, 2 usage, 3 an {@code --assert} missed, 4 a comparison
 * refused (a refusal outranks a missed assertion: its ratios mean nothing).
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare two URLs under the same load (or, with no URLs, direct vs through Portico).")
final class CompareCommand implements Callable<Integer> {

    /** The CLI entry point the scenarios start the demo app and Portico with (overridable for a stand-in). */
    static final String MAIN_CLASS = System.getProperty("portico.bench.main", "io.portico.cli.Main");

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    LoadOptions load = new LoadOptions();

    @Option(names = "--a", paramLabel = "URL", description = "Baseline URL.")
    String a;

    @Option(names = "--b", paramLabel = "URL", description = "Candidate URL.")
    String b;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3", description = "Rounds (A B A B ...), default 3.")
    int rounds;

    @Option(names = "--scenario", paramLabel = "NAME", description = "Built-in scenarios only: run these (repeatable;"
            + " static, proxy, block, tls, slow-clients, flood, compression, micro-cache); default all.")
    List<String> only = new ArrayList<>();

    @Option(names = "--json", paramLabel = "FILE|-", description = "Write both runs and the ratios as JSON.")
    String json;

    @Option(names = "--html", paramLabel = "FILE", description = "Write an HTML report with both runs overlaid.")
    Path html;

    @Option(names = "--assert", paramLabel = "EXPR", description = "Bound to meet: 'throughput>=0.9', "
            + "'p99<=1.2' (B/A, no unit; also 'ratio(p99)<=1.2'), 'b.p99<5ms' (one side; any 'portico bench "
            + "--assert'); repeatable; exit 3 when one is missed.")
    List<String> asserts = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if ((a == null) != (b == null) || rounds < 1) {
            err.println("portico bench compare: " + (rounds < 1 ? "rounds: %d (expected: > 0)".formatted(rounds)
                    : "--a and --b: only one given (expected: both, or neither for the built-in scenarios)"));
            err.flush();
            return BenchCommand.USAGE;
        }
        for (String name : only) {
            if (!BuiltInScenarios.NAMES.contains(name) || a != null) {
                err.println("portico bench compare: --scenario " + name + " (expected: without --a/--b, one of "
                        + String.join(", ", BuiltInScenarios.NAMES) + ")");
                err.flush();
                return BenchCommand.USAGE;
            }
        }
        BenchOptions options;
        Transport transport;
        List<CompareAssertion> checks = new ArrayList<>();
        try {
            options = load.toOptions(a == null ? List.of("http://127.0.0.1/") : List.of(a, b));
            transport = load.clientTransport();
            for (String text : asserts) {
                checks.add(CompareAssertion.parse(text));
            }
        } catch (IllegalArgumentException e) {
            err.println("portico bench compare: " + e.getMessage());
            err.flush();
            return BenchCommand.USAGE;
        }
        String commandLine = TypedCommand.of(spec);
        List<Scenario> scenarios = new ArrayList<>();
        boolean jsonToStdout = "-".equals(json);
        PrintWriter report = jsonToStdout ? err : out;
        try (ClientLoops loops = new ClientLoops(options.threads(), transport)) {
            if (load.clientWarmup) {
                ClientWarmup.run(loops, options);
            }
            StartupHeap.settle(); // the client's own pauses would count in every latency it measures
            if (a == null) {
                Path dir = Files.createTempDirectory("portico-bench-");
                for (Scenario s : new BuiltInScenarios(options, rounds, BuiltInScenarios.javaPrefix(), MAIN_CLASS, dir,
                        loops, err).run(only.isEmpty() ? java.util.Set.copyOf(BuiltInScenarios.NAMES)
                                : java.util.Set.copyOf(only))) {
                    scenarios.add(s.checked(checks));
                }
                report.print(BuiltInScenarios.table(scenarios));
            } else {
                RequestTarget targetA = options.targets().get(0);
                RequestTarget targetB = options.targets().get(1);
                CompareRun run = new CompareRun(options, targetA, targetB, rounds, loops,
                        System.console() != null ? err : null, err);
                // Local servers: what each process spent per response on each side (/proc), as the built-in
                // scenarios report it.
                java.util.Optional<ServerCpu> cpu = ServerCpu.listeningOn(targetA, targetB);
                cpu.ifPresent(run::observedBy);
                CompareResult result = run.run(a, b);
                List<String> notes = new java.util.ArrayList<>();
                String shared = SharedMachine.note(targetA, targetB, Runtime.getRuntime().availableProcessors());
                if (shared != null) {
                    notes.add(shared);
                }
                cpu.map(c -> c.note(result)).ifPresent(notes::add);
                Scenario s = new Scenario(a + " vs " + b, result, List.of(CompareMetric.values()), notes, List.of())
                        .checked(checks);
                scenarios.add(s);
                report.print(CompareReport.render(s));
            }
            report.flush();
        } catch (IOException | IllegalArgumentException e) {
            err.println("portico bench compare: " + e.getMessage());
            err.flush();
            return BenchCommand.RUN_FAILED;
        }
        if (json != null) {
            String text = JsonReport.renderCompare(scenarios, commandLine);
            if (jsonToStdout) {
                out.println(text);
                out.flush();
            } else if (!BenchCommand.write(Path.of(json), text, "JSON", err)) {
                return BenchCommand.RUN_FAILED;
            }
        }
        if (html != null && !BenchCommand.write(html, HtmlReport.renderCompare(scenarios, commandLine), "HTML", err)) {
            return BenchCommand.RUN_FAILED;
        }
        return exitCode(scenarios, err);
    }

    /** 1 when a side got no response, else 4 when a comparison was refused, else 3 when an assertion missed. */
    static int exitCode(List<Scenario> scenarios, PrintWriter err) {
        int code = 0;
        for (Scenario s : scenarios) {
            CompareResult c = s.result();
            if (c.a().tally().responses() == 0 || c.b().tally().responses() == 0) {
                err.println("portico bench compare: " + (s.name().isEmpty() ? "" : s.name() + ": ")
                        + "a side got no response");
                code = BenchCommand.RUN_FAILED;
            } else if (s.refused() && code != BenchCommand.RUN_FAILED) {
                err.println("portico bench compare: " + (s.name().isEmpty() ? "" : s.name() + ": ") + "no ratio: "
                        + c.refusal() + " (exit " + BenchCommand.COMPARISON_REFUSED + ")");
                code = BenchCommand.COMPARISON_REFUSED;
            }
            for (AssertionResult r : s.assertions()) {
                if (!r.passed()) {
                    err.println((s.name().isEmpty() ? "" : s.name() + ": ") + r.failure());
                    code = code == 0 ? BenchCommand.ASSERT_FAILED : code;
                }
            }
        }
        err.flush();
        return code;
    }
}
