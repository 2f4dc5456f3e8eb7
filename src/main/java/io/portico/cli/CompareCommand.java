package io.portico.cli;

import io.portico.bench.BenchOptions;
import io.portico.bench.BuiltInScenarios;
import io.portico.bench.ClientLoops;
import io.portico.bench.ClientWarmup;
import io.portico.bench.CompareReport;
import io.portico.bench.CompareResult;
import io.portico.bench.CompareRun;
import io.portico.bench.HtmlReport;
import io.portico.bench.JsonReport;
import io.portico.bench.RequestTarget;
import io.portico.server.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code portico bench compare --a URL --b URL [load options]}: the same load against both, interleaved rounds,
 * B/A with its spread. Without URLs: the built-in scenarios (demo app direct vs behind Portico).
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

    @Option(names = "--json", paramLabel = "FILE|-", description = "Write both runs and the ratios as JSON.")
    String json;

    @Option(names = "--html", paramLabel = "FILE", description = "Write an HTML report with both runs overlaid.")
    Path html;

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
        BenchOptions options;
        Transport transport;
        try {
            options = load.toOptions(a == null ? List.of("http://127.0.0.1/") : List.of(a, b));
            transport = load.clientTransport();
        } catch (IllegalArgumentException e) {
            err.println("portico bench compare: " + e.getMessage());
            err.flush();
            return BenchCommand.USAGE;
        }
        String commandLine = "portico bench compare "
                + String.join(" ", spec.commandLine().getParseResult().originalArgs());
        try (ClientLoops loops = new ClientLoops(options.threads(), transport)) {
            if (load.clientWarmup) {
                ClientWarmup.run(loops, options);
            }
            if (a == null) {
                Path dir = Files.createTempDirectory("portico-bench-");
                out.print(new BuiltInScenarios(options, rounds, BuiltInScenarios.javaPrefix(), MAIN_CLASS, dir, loops,
                        err).run());
                out.flush();
                return 0;
            }
            RequestTarget targetA = options.targets().get(0);
            RequestTarget targetB = options.targets().get(1);
            CompareResult result = new CompareRun(options, targetA, targetB, rounds, loops,
                    System.console() != null ? err : null, err).run(a, b);
            boolean jsonToStdout = "-".equals(json);
            PrintWriter report = jsonToStdout ? err : out;
            report.print(CompareReport.render(result));
            report.flush();
            if (json != null) {
                String text = JsonReport.renderCompare(result, commandLine);
                if (jsonToStdout) {
                    out.println(text);
                    out.flush();
                } else if (!BenchCommand.write(Path.of(json), text, err)) {
                    return BenchCommand.RUN_FAILED;
                }
            }
            List<HtmlReport.Series> series = List.of(new HtmlReport.Series("A", result.a()),
                    new HtmlReport.Series("B", result.b()));
            if (html != null && !BenchCommand.write(html, HtmlReport.render(series, commandLine), err)) {
                return BenchCommand.RUN_FAILED;
            }
            return result.a().tally().responses() == 0 || result.b().tally().responses() == 0
                    ? BenchCommand.RUN_FAILED : 0;
        } catch (IOException | IllegalArgumentException e) {
            err.println("portico bench compare: " + e.getMessage());
            err.flush();
            return BenchCommand.RUN_FAILED;
        }
    }
}
