package io.portico.cli;

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
            DemoAppCommand.class,
            VersionCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code: 0 ok, 1 failed, 2 usage error. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new Main());
        return cli.execute(withDefaultSubcommand(cli, args));
    }

    private static String[] withDefaultSubcommand(CommandLine cli, String[] args) {
        boolean topLevelFlag = args.length > 0
                && (args[0].equals("--help") || args[0].equals("-h") || args[0].equals("--version") || args[0].equals("-V"));
        if (topLevelFlag || (args.length > 0 && cli.getSubcommands().containsKey(args[0]))) {
            return args;
        }
        String[] out = new String[args.length + 1];
        out[0] = "serve";
        System.arraycopy(args, 0, out, 1, args.length);
        return out;
    }

}
