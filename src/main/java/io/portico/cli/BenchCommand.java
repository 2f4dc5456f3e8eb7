package io.portico.cli;

import io.portico.bench.Assertion;
import io.portico.bench.AssertionResult;
import io.portico.bench.BenchOptions;
import io.portico.bench.BenchResult;
import io.portico.bench.BenchRun;
import io.portico.bench.ClientLoops;
import io.portico.bench.ClientWarmup;
import io.portico.bench.HtmlReport;
import io.portico.bench.JsonReport;
import io.portico.bench.TextReport;
import io.portico.transport.Transport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code portico bench [options] URL...}: loads URLs and reports siege/ab-style figures that survive coordinated
 * omission and name client-side limits as such. Exit codes: 0 done, 1 the run could not be done, 2 usage error,
 * 3 an {@code --assert} bound was missed, 4 ({@code bench compare}) the comparison was refused: A and B answer
 * differently, or the client set the pace, so no ratio means anything.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, subcommands = CompareCommand.class,
        description = "Benchmark HTTP URLs (closed loop by default, open loop with -R).")
public final class BenchCommand implements Callable<Integer> {

    static final int RUN_FAILED = 1;
    static final int USAGE = 2;
    static final int ASSERT_FAILED = 3;
    static final int COMPARISON_REFUSED = 4;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    LoadOptions load = new LoadOptions();

    @Parameters(paramLabel = "URL", arity = "0..*", description = "URLs to load (round-robin).")
    List<String> urls = new ArrayList<>();

    @Option(names = "--json", paramLabel = "FILE|-", description = "Write the figures as JSON ('-': stdout).")
    String json;

    @Option(names = "--html", paramLabel = "FILE", description = "Write a self-contained HTML report.")
    Path html;

    @Option(names = "--assert", paramLabel = "EXPR", description = "Bound to meet, e.g. 'p99<50ms', 'errors<0.1%%'; "
            + "exit 3 when one is missed.")
    List<String> asserts = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        BenchOptions options;
        Transport transport;
        List<Assertion> assertions = new ArrayList<>();
        try {
            options = load.toOptions(urls).requireOneOrigin();
            transport = load.clientTransport();
            for (String a : asserts) {
                assertions.add(Assertion.parse(a));
            }
        } catch (IllegalArgumentException e) {
            err.println("portico bench: " + e.getMessage());
            err.flush();
            return USAGE;
        }
        boolean jsonToStdout = "-".equals(json);
        PrintWriter report = jsonToStdout ? err : out;
        BenchResult result;
        try (ClientLoops loops = new ClientLoops(options.threads(), transport)) {
            report.printf("portico bench: %d connection(s), %s, %s%n", options.connections(),
                    options.openLoop() ? "open loop at " + options.rate() + " req/s" : "closed loop",
                    options.targets().size() == 1 ? options.targets().get(0) : options.targets().size() + " URLs");
            report.flush();
            if (load.clientWarmup) {
                ClientWarmup.run(loops, options);
            }
            StartupHeap.settle(); // the client's own pauses would count in every latency it measures
            result = new BenchRun(options, loops, System.console() != null ? err : null, err).run();
        } catch (IllegalArgumentException e) {
            err.println("portico bench: " + e.getMessage());
            err.flush();
            return RUN_FAILED;
        }
        List<AssertionResult> checked = new ArrayList<>();
        for (Assertion a : assertions) {
            checked.add(a.check(result));
        }
        report.print(TextReport.render(result));
        String assertionLines = TextReport.assertions(checked);
        if (!assertionLines.isEmpty()) {
            report.print("\n" + assertionLines);
        }
        report.flush();
        String commandLine = TypedCommand.of(spec);
        if (json != null) {
            String text = JsonReport.render(result, commandLine, checked);
            if (jsonToStdout) {
                out.println(text);
                out.flush();
            } else if (!write(Path.of(json), text, "JSON", err)) {
                return RUN_FAILED;
            }
        }
        if (html != null && !write(html, HtmlReport.render(result, commandLine, checked), "HTML", err)) {
            return RUN_FAILED;
        }
        if (result.stoppedEarly() != null || result.tally().responses() == 0) {
            return RUN_FAILED;
        }
        boolean failed = false;
        for (AssertionResult a : checked) {
            if (!a.passed()) {
                err.println(a.failure());
                failed = true;
            }
        }
        err.flush();
        return failed ? ASSERT_FAILED : 0;
    }

    /** Writes a report and says where (a report written silently is a report nobody finds). */
    static boolean write(Path file, String text, String kind, PrintWriter err) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
            err.println("portico bench: wrote the " + kind + " report to " + file);
            err.flush();
            return true;
        } catch (IOException e) {
            err.println("portico bench: cannot write " + file + ": " + e.getMessage());
            err.flush();
            return false;
        }
    }
}
