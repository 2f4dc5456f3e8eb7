package io.portico.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Placeholder replaced below. */
@Command(name = "compare", mixinStandardHelpOptions = true)
final class CompareCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return 0;
    }
}
