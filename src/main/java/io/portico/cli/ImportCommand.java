package io.portico.cli;

import io.portico.config.ConfigLoader;
import io.portico.config.InvalidConfigException;
import io.portico.config.PorticoConfig;
import io.portico.nginx.NginxImport;
import io.portico.nginx.NginxSyntaxException;
import io.portico.nginx.Report;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code portico import nginx.conf}: translates an nginx configuration into Portico's. Exit 0 when everything
 * mapped (or with --partial), 1 when something was left out (the file is still written, and each left-out line
 * is on stderr and at the end of the file) or --check found a problem, 2 for input nginx itself would refuse.
 */
@Command(name = "import", mixinStandardHelpOptions = true,
        description = "Translate an nginx configuration into Portico's: every line Portico cannot express is"
                + " listed (exit 1 unless --partial); bad nginx input exits 2.")
final class ImportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "The nginx configuration (includes are followed).")
    Path file;

    @Option(names = "--from", paramLabel = "FORMAT", defaultValue = "nginx",
            description = "What FILE is: nginx (the only one so far).")
    String from;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write here instead of stdout.")
    Path output;

    @Option(names = "--partial", description = "Exit 0 even when some directives could not be mapped.")
    boolean partial;

    @Option(names = "--check", description = "Also load the result as 'portico check' does and report its problems.")
    boolean check;

    @Option(names = {"-p", "--prefix"}, paramLabel = "DIR",
            description = "With --check: where relative paths resolve (default: the parent of the output's folder).")
    Path prefix;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!from.equals("nginx")) {
            err.println("portico import: --from " + from + " (expected: nginx)");
            err.flush();
            return 2;
        }
        NginxImport.Result result;
        try {
            result = NginxImport.translate(file);
        } catch (NginxSyntaxException e) {
            err.println("portico import: " + e.getMessage());
            err.flush();
            return 2;
        }
        if (output != null) {
            try {
                Files.writeString(output, result.hocon(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                err.println("portico import: cannot write " + output + " (" + e.getMessage() + ")");
                err.flush();
                return 2;
            }
        } else {
            out.print(result.hocon());
            out.flush();
        }
        for (Report.Item i : result.report().notes()) {
            err.println("note: " + i);
        }
        for (Report.Item i : result.report().unmapped()) {
            err.println("not mapped: " + i);
        }
        int unmapped = result.report().unmapped().size();
        err.println(unmapped == 0 ? "everything mapped" : unmapped + (unmapped == 1 ? " directive" : " directives")
                + " not mapped" + (partial ? " (--partial: exit 0)" : ""));
        boolean checked = !check || check(result.hocon(), err);
        err.flush();
        if (!checked) {
            return 1;
        }
        return unmapped == 0 || partial ? 0 : 1;
    }

    private boolean check(String hocon, PrintWriter err) {
        Path name = output != null ? output.toAbsolutePath() : Path.of("portico.conf").toAbsolutePath();
        Path base = prefix != null ? prefix : name.getParent().getParent() != null ? name.getParent().getParent()
                : name.getParent();
        try {
            PorticoConfig config = ConfigLoader.parse(hocon, name.toString(), base);
            err.println("check: configuration ok (" + config.allLocations().size() + " locations)");
            return true;
        } catch (InvalidConfigException e) {
            CheckCommand.printProblems(err, e);
            return false;
        }
    }
}
