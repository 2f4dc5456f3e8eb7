package io.portico.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A real HAProxy (Debian's {@code haproxy}) in the foreground on a free loopback port, from a configuration the test
 * writes around that port: the L4 balancer the PROXY protocol tests put in front of Portico. Without the binary the
 * tests that need it are skipped, unless {@code PORTICO_REQUIRE_HAPROXY=1} (CI sets it) makes that a failure.
 */
public final class HAProxyProcess implements AutoCloseable {
    private static final List<Path> BINARIES = List.of(Path.of("/usr/sbin/haproxy"), Path.of("/usr/local/sbin/haproxy"));

    private final Process process;
    private final int port;
    private final Path log;

    private HAProxyProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** Skips the test without HAProxy (fails it where PORTICO_REQUIRE_HAPROXY=1); returns the binary. */
    public static Path binary() {
        Path found = BINARIES.stream().filter(Files::isExecutable).findFirst().orElse(null);
        if (found == null && "1".equals(System.getenv("PORTICO_REQUIRE_HAPROXY"))) {
            throw new IllegalStateException("haproxy is not installed (apt-get install -y haproxy)");
        }
        assumeTrue(found != null, "haproxy is not installed (apt-get install -y haproxy)");
        return found;
    }

    /**
     * Starts HAProxy with the configuration {@code config} returns for a free frontend port, once it accepts
     * connections on that port. {@code config} gets the port to bind {@code 127.0.0.1:PORT} to.
     */
    public static HAProxyProcess start(Path dir, IntFunction<String> config) throws IOException {
        Path binary = binary();
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port may be taken before HAProxy binds it
            int port = freePort();
            Path conf = dir.resolve("haproxy-" + port + ".cfg");
            Files.writeString(conf, config.apply(port));
            Path out = dir.resolve("haproxy-" + port + ".log");
            Process process = new ProcessBuilder(binary.toString(), "-db", "-f", conf.toString())
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            HAProxyProcess haproxy = new HAProxyProcess(process, port, out);
            if (haproxy.awaitListening()) {
                return haproxy;
            }
            last = new IOException("haproxy did not listen on " + port + ": " + haproxy.output());
            haproxy.close();
        }
        throw last;
    }

    public int port() {
        return port;
    }

    /** What HAProxy wrote (its warnings, alerts and, with {@code log stdout}, its log). */
    public String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }

    private boolean awaitListening() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && process.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return true;
            } catch (IOException e) {
                sleep(20);
            }
        }
        return false;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
