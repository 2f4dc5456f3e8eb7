package io.portico.cli;

import io.portico.config.PorticoConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code portico reload}, as {@code nginx -s reload}: checks the configuration here first (a file with problems is
 * not sent: exit 1 with check's output), then sends SIGHUP to the server whose process id is in the file's
 * {@code pid-file}. The server checks the file again and logs the outcome (docs/deploy.md).
 */
@Command(name = "reload", mixinStandardHelpOptions = true,
        description = "Check the configuration, then tell the running server (its pid-file) to reload it.")
final class ReloadCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions conf;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PorticoConfig config = conf.loadOrReport(err, "not reloaded");
        if (config == null) {
            return 1;
        }
        Optional<Path> pidFile = config.pidFile();
        if (pidFile.isEmpty()) {
            err.println("portico: pid-file = off in " + config.file() + ": no server to signal (kill -HUP its pid)");
            err.flush();
            return 1;
        }
        try {
            Optional<Long> pid = PidFile.read(pidFile.get());
            if (pid.isEmpty() || ProcessHandle.of(pid.get()).map(ProcessHandle::isAlive).orElse(false) == false) {
                err.println("portico: " + pidFile.get() + " names no running process (stale pid file?)");
                err.flush();
                return 1;
            }
            if (!hangUp(pid.get())) {
                err.println("portico: cannot signal process " + pid.get());
                err.flush();
                return 1;
            }
            out.println("portico: sent SIGHUP to " + pid.get() + "; the server logs what changed");
            out.flush();
            return 0;
        } catch (NoSuchFileException e) {
            err.println("portico: " + pidFile.get() + " does not exist: is portico running with this configuration?");
        } catch (IOException e) {
            err.println("portico: cannot read " + pidFile.get() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("portico: interrupted");
        }
        err.flush();
        return 1;
    }

    /** Java can send no signal but TERM and KILL to another process: kill(1) sends HUP, as systemd's ExecReload. */
    private static boolean hangUp(long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(pid)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0;
    }
}
