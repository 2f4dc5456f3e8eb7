package io.portico.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child process started for a scenario (demo app, Portico), its output in a log file, ready once its port
 * accepts connections, and always destroyed: by {@link #close}, or by the JVM shutdown hook on Ctrl-C.
 */
public final class ManagedProcess implements AutoCloseable {

    private final String name;
    private final Process process;
    private final Path log;
    private final Thread hook;

    private ManagedProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.hook = new Thread(this::destroy, "bench-destroy-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * util-linux's setsid, where there is one. A server started in the client's session shares the client's
     * scheduler autogroup (Linux's default on desktops and many servers), so the group's CPU share is split between
     * the load generator and the server it measures; a daemonized nginx or a systemd service never is. setsid
     * gives the child a session, so a group, of its own; it replaces itself with the command (a child of a JVM is
     * no process-group leader, so setsid does not fork), so the pid and exit code stay the command's.
     */
    private static final Path SETSID = Path.of("/usr/bin/setsid");

    /** Starts {@code command} in a session of its own where it can, output (both streams) to {@code log}. */
    public static ManagedProcess start(String name, List<String> command, Path log) throws IOException {
        List<String> argv = new ArrayList<>();
        if (Files.isExecutable(SETSID)) {
            argv.add(SETSID.toString());
        }
        argv.addAll(command);
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ManagedProcess(name, p, log);
    }

    /**
     * Polls {@code port} on loopback until it accepts a connection; fails early (with the log's tail) when the
     * process exits first or the port isn't up within {@code timeout}.
     */
    public void awaitPort(int port, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("%s exited with code %d before listening on port %d; its output:%n%s"
                        .formatted(name, process.exitValue(), port, tail()));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("%s did not listen on port %d within %s; its output:%n%s"
                            .formatted(name, port, timeout, tail()));
                }
            }
            // a child process starting up: polling from the CLI thread, not an event loop
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** The last lines of the process's output. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    private void destroy() {
        process.destroy();
        try {
            if (!process.waitFor(3, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(3, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** The process id (setsid replaces itself with the command, so it is the command's). */
    long processId() {
        return process.pid();
    }

    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing left to undo
        }
    }
}
