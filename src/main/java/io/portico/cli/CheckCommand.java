package io.portico.cli;

import io.portico.config.ConfigDump;
import io.portico.config.ConfigProblem;
import io.portico.config.InvalidConfigException;
import io.portico.config.PorticoConfig;
import io.portico.ratelimit.RateLimits;
import io.portico.ratelimit.StoreProbe;
import io.portico.server.HeapAdvice;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code portico check}, like {@code nginx -t}: every problem at once, or the effective configuration. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = "Check a configuration: print every problem (exit 1), "
                + "or 'configuration ok' and the effective config.")
final class CheckCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions conf;

    @Spec
    CommandSpec spec;

    @Option(names = "--connect", description = "Also connect to each Redis store the zones name, say what answered"
            + " (server, version, mode, nodes) and run a decision's commands there (scripts loaded, EVALSHA by key),"
            + " or say why not: exit 2 if a store cannot be reached or refuses them.")
    boolean connect;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PorticoConfig config;
        try {
            config = conf.load();
        } catch (InvalidConfigException e) {
            printProblems(err, e);
            return 1;
        }
        for (String w : ConfigWarnings.of(config)) {
            err.println("warning: " + w);
        }
        out.println("configuration ok: " + config.file());
        for (String zone : RateLimits.describe(config)) {
            out.println("# rate limit " + zone);
        }
        out.println("# heap: " + HeapAdvice.of(config) + "; size -Xms and -Xmx to it, with -XX:+AlwaysPreTouch");
        out.println("# effective configuration, every default filled in, paths relative to " + config.prefix());
        out.print(ConfigDump.render(config));
        out.flush();
        return connect ? connectToStores(config, out, err) : 0;
    }

    /** {@code --connect}: one line per store, on stdout when it answered, on stderr when not. */
    private static int connectToStores(PorticoConfig config, PrintWriter out, PrintWriter err) {
        List<StoreProbe.Result> results = StoreProbe.probe(config);
        if (results.isEmpty()) {
            out.println("# store: every zone is local, no store to connect to");
        }
        boolean allOk = true;
        for (StoreProbe.Result r : results) {
            String zones = String.join(", ", r.zones());
            if (r.ok()) {
                out.println("# store " + r.store() + " (" + zones + "): ok, " + r.found());
            } else {
                err.println("store " + r.store() + " (" + zones + "): " + r.found());
                allOk = false;
            }
        }
        out.flush();
        err.flush();
        return allOk ? 0 : 2;
    }

    static void printProblems(PrintWriter err, InvalidConfigException e) {
        for (ConfigProblem p : e.problems()) {
            err.println(p);
        }
        err.println("configuration has " + e.problems().size() + (e.problems().size() == 1 ? " problem" : " problems"));
        err.flush();
    }
}
