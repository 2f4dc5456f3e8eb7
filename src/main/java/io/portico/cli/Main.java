package io.portico.cli;

import io.netty.util.ResourceLeakDetector;
import io.portico.config.Suggestions;
import java.io.PrintWriter;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code portico} command. With no subcommand it serves, like nginx. */
@Command(
        name = "portico",
        mixinStandardHelpOptions = true,
        versionProvider = VersionCommand.Provider.class,
        description = "A front tier: static files, per-client rate limits, reverse proxy, honest benchmarks.",
        subcommands = {
            ServeCommand.class,
            CheckCommand.class,
            ReloadCommand.class,
            ImportCommand.class,
            DemoAppCommand.class,
            BenchCommand.class,
            VersionCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main {

    public static void main(String[] args) {
        defaultAllocatorEventsOff(); // first: Netty reads the property once, when its first class initialises
        defaultLeakDetectionOff();
        int code = run(args);
        Logs.flush();
        System.exit(code);
    }

    /**
     * Netty's default leak detection (SIMPLE) wraps every buffer and records a stack trace for one allocation in
     * 128: measured at ~100 ns per request on the hot path (two buffers each), about 1% of a small response. The
     * test suite runs every buffer path at PARANOID and fails on any report, so a running server leaves it off
     * unless asked: {@code JAVA_OPTS=-Dio.netty.leakDetection.level=simple}. Only the process entry point does
     * this; {@link #run} (what tests call) keeps whatever the JVM was given.
     */
    private static void defaultLeakDetectionOff() {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
    }

    /**
     * Netty 4.2's buffer allocator describes its chunks to Java Flight Recorder, and asking whether those events are
     * enabled starts JFR's own machinery on the first buffer allocated: about 60 JFR classes and 80-100 ms added to
     * the first request after start (measured: 210-240 ms against 130-150 ms, curl on a static file right after
     * start). Portico records none of them; {@code JAVA_OPTS=-Dio.netty.jfr.enabled=true} brings them back for a
     * recording. As leak detection, only the process entry point sets this.
     */
    private static void defaultAllocatorEventsOff() {
        if (System.getProperty("io.netty.jfr.enabled") == null) {
            System.setProperty("io.netty.jfr.enabled", "false");
        }
    }

    /** Runs the command line and returns the exit code: 0 ok, 1 failed, 2 usage error. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        return run(cli, args);
    }

    /** As {@link #run(String...)}, printing to {@code out} and {@code err}. */
    static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(new CommandLine(new Main()).setOut(out).setErr(err), args);
    }

    private static int run(CommandLine cli, String[] args) {
        if (args.length > 0 && !args[0].startsWith("-") && !cli.getSubcommands().containsKey(args[0])) {
            return unknownCommand(cli, args[0]);
        }
        return cli.execute(withDefaultSubcommand(cli, args));
    }

    /**
     * A first word that names no command is a usage error (exit 2), not options for serve: {@code portico chek}
     * must not start a server.
     */
    private static int unknownCommand(CommandLine cli, String word) {
        PrintWriter err = cli.getErr();
        Set<String> commands = cli.getSubcommands().keySet();
        err.println("portico: unknown command '" + word + "'" + Suggestions.closest(word, commands)
                .map(s -> "; did you mean '" + s + "'?")
                .orElse(" (expected: one of " + String.join(", ", commands) + ")"));
        err.flush();
        return 2;
    }

    private static String[] withDefaultSubcommand(CommandLine cli, String[] args) {
        boolean topLevelFlag = args.length > 0
                && (args[0].equals("--help") || args[0].equals("-h")
                        || args[0].equals("--version") || args[0].equals("-V"));
        if (topLevelFlag || (args.length > 0 && cli.getSubcommands().containsKey(args[0]))) {
            return args;
        }
        String[] out = new String[args.length + 1];
        out[0] = "serve";
        System.arraycopy(args, 0, out, 1, args.length);
        return out;
    }

}
