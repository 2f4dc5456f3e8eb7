package io.portico.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real server binary a test runs against (HAProxy, uWSGI, PHP-FPM, Redis): started with its arguments and a
 * temp directory of its own, ready once a probe succeeds (by default: its loopback port accepts a connection)
 * within a deadline, its output kept for failure messages, and stopped with SIGTERM, then SIGKILL after a grace
 * period, its temp directory deleted.
 *
 * <p>A server that binds a port a test chose is given a free loopback port; since another process may take that
 * port before the server binds it, a server that exits before it is ready is started again on another port
 * (three tries).
 * Readiness is polled: the process is not ours to instrument, so there is no future to wait on.
 */
public final class ExternalProcess implements AutoCloseable {
    /** What a server is started with, for the free port {@code port} and its temp directory {@code dir}. */
    @FunctionalInterface
    public interface Command {
        List<String> of(Path dir, int port) throws IOException;
    }

    /** Whether the server is ready; an exception means "not yet". */
    @FunctionalInterface
    public interface Probe {
        boolean ready(int port) throws IOException;
    }

    private final String name;
    private final Process process;
    private final int port;
    private final Path dir;
    private final Path output;
    private final Duration grace;

    private ExternalProcess(String name, Process process, int port, Path dir, Path output, Duration grace) {
        this.name = name;
        this.process = process;
        this.port = port;
        this.dir = dir;
        this.output = output;
        this.grace = grace;
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Options of a start; {@link #start} tries up to three free ports. */
    public static final class Builder {
        private final String name;
        private Command command;
        private Probe probe = ExternalProcess::acceptsTcp;
        private Duration deadline = Duration.ofSeconds(20);
        private Duration grace = Duration.ofSeconds(5);
        private final List<Path> logs = new ArrayList<>();

        private Builder(String name) {
            this.name = name;
        }

        public Builder command(Command command) {
            this.command = command;
            return this;
        }

        /** The readiness check (default: a loopback TCP connection to the port succeeds). */
        public Builder ready(Probe probe) {
            this.probe = probe;
            return this;
        }

        /** How long the server has to become ready (default 20 s). */
        public Builder deadline(Duration deadline) {
            this.deadline = deadline;
            return this;
        }

        /** How long SIGTERM has before SIGKILL (default 5 s). */
        public Builder grace(Duration grace) {
            this.grace = grace;
            return this;
        }

        /** A log file the server writes itself, shown with its output when it fails to start. */
        public Builder log(Path file) {
            logs.add(file);
            return this;
        }

        public ExternalProcess start() {
            String failure = "";
            for (int attempt = 0; attempt < 3; attempt++) {
                ExternalProcess p = launch();
                if (p.awaitReady(probe, deadline)) {
                    return p;
                }
                failure = p.outputAndLogs(logs);
                boolean exited = !p.isAlive();
                p.close();
                if (!exited) {
                    break; // alive but never ready: another port would not help
                }
            }
            throw new IllegalStateException(name + " did not become ready within " + deadline + "; its output:\n"
                    + failure);
        }

        private ExternalProcess launch() {
            Path dir = null;
            try {
                dir = Files.createTempDirectory("portico-" + name + "-");
                int port = freePort();
                Path output = dir.resolve("output.log");
                Process process = new ProcessBuilder(command.of(dir, port)).redirectErrorStream(true)
                        .redirectOutput(output.toFile()).start();
                return new ExternalProcess(name, process, port, dir, output, grace);
            } catch (IOException e) {
                if (dir != null) {
                    delete(dir);
                }
                throw new UncheckedIOException(name + " did not start", e);
            }
        }
    }

    /** The free loopback port the server was given. */
    public int port() {
        return port;
    }

    /** Its temp directory, deleted when it stops. */
    public Path dir() {
        return dir;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** What the server wrote on stdout and stderr. */
    public String output() {
        try {
            return Files.exists(output) ? Files.readString(output) : "";
        } catch (IOException e) {
            return "(its output is unreadable: " + e + ")";
        }
    }

    private String outputAndLogs(List<Path> logs) {
        StringBuilder all = new StringBuilder(output());
        for (Path log : logs) {
            try {
                all.append("\n--- ").append(log).append(":\n")
                        .append(Files.exists(log) ? Files.readString(log) : "(none)");
            } catch (IOException e) {
                all.append("\n--- ").append(log).append(": ").append(e);
            }
        }
        return all.toString();
    }

    private boolean awaitReady(Probe probe, Duration deadline) {
        long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end && process.isAlive()) {
            try {
                if (probe.ready(port)) {
                    return true;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    /** SIGKILL, as a crash: the process gets no chance to clean up. Its temp directory stays until {@link #close}. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(5));
    }

    /** SIGTERM, SIGKILL after the grace period, then its temp directory deleted. */
    @Override
    public void close() {
        process.destroy();
        if (!waitFor(grace)) {
            process.destroyForcibly();
            waitFor(Duration.ofSeconds(5));
        }
        delete(dir);
    }

    private boolean waitFor(Duration time) {
        try {
            return process.waitFor(time.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp directory
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", port " + port + ")";
    }

    /** The default probe: a TCP connection to the loopback port succeeds. */
    public static boolean acceptsTcp(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        }
    }

    /** A probe for a server on a unix socket: a connection to {@code socket} succeeds. */
    public static Probe acceptsUnix(Path socket) {
        return port -> {
            try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                c.connect(UnixDomainSocketAddress.of(socket));
                return true;
            }
        };
    }

    /** A loopback port free now (it may be taken before it is bound: hence the retries). */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Whether {@code binary} is an executable in a directory of the PATH. */
    public static boolean onPath(String binary) {
        String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, binary)));
    }

    /**
     * Skips the test when {@code installed} is false, or fails it when one of {@code requiredBy} (environment
     * variables, such as CI's {@code PORTICO_REQUIRE_REDIS}) is set to {@code 1} or {@code true}: there the
     * binary must be present.
     */
    public static void require(boolean installed, String why, String... requiredBy) {
        boolean required = Arrays.stream(requiredBy).map(System::getenv).anyMatch(v -> "1".equals(v)
                || "true".equals(v));
        if (!installed && required) {
            throw new IllegalStateException(why);
        }
        assumeTrue(installed, why);
    }
}
