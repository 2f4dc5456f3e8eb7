package io.portico.cli;

import picocli.CommandLine;

/** Runs {@code portico bench} by hand before Main registers it: {@code java -cp ... io.portico.cli.BenchMain ARGS}. */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand()).execute(args));
    }
}
