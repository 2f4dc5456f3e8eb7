package io.portico.cli;

import io.portico.config.ConfigLoader;
import io.portico.config.InvalidConfigException;
import io.portico.config.PorticoConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --conf} and {@code --prefix}, shared by the commands that read a configuration. */
final class ConfigOptions {
    @Option(names = {"-c", "--conf"}, paramLabel = "FILE", defaultValue = "${sys:portico.home:-.}/conf/portico.conf",
            description = "Configuration file (default: ${DEFAULT-VALUE}).")
    Path file;

    @Option(names = {"-p", "--prefix"}, paramLabel = "DIR",
            description = "Directory that relative paths resolve against "
                    + "(default: the parent of the config file's folder).")
    Path prefix;

    PorticoConfig load() throws InvalidConfigException {
        return ConfigLoader.load(file, Optional.ofNullable(prefix));
    }

    /**
     * The configuration, or null after its problems were printed to {@code err} as {@code check} prints them and
     * then {@code portico: OUTCOME} ("not started", "not reloaded").
     */
    PorticoConfig loadOrReport(PrintWriter err, String outcome) {
        try {
            return load();
        } catch (InvalidConfigException e) {
            CheckCommand.printProblems(err, e);
            err.println("portico: " + outcome);
            err.flush();
            return null;
        }
    }
}
