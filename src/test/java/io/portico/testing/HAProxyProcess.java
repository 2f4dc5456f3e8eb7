package io.portico.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A real HAProxy (Debian's {@code haproxy}) in the foreground on a free loopback port, from a configuration the test
 * writes around that port: the L4 balancer the PROXY protocol tests put in front of Portico. Without the binary the
 * tests that need it are skipped, unless {@code PORTICO_REQUIRE_HAPROXY=1} (CI sets it) makes that a failure.
 */
public final class HAProxyProcess implements AutoCloseable {
    private static final List<Path> BINARIES = List.of(Path.of("/usr/sbin/haproxy"), Path.of("/usr/local/sbin/haproxy"));

    private final ExternalProcess process;

    private HAProxyProcess(ExternalProcess process) {
        this.process = process;
    }

    /** Skips the test without HAProxy (fails it where PORTICO_REQUIRE_HAPROXY=1); returns the binary. */
    public static Path binary() {
        Path found = BINARIES.stream().filter(Files::isExecutable).findFirst().orElse(null);
        ExternalProcess.require(found != null, "haproxy is not installed (apt-get install -y haproxy)",
                "PORTICO_REQUIRE_HAPROXY");
        return found;
    }

    /**
     * Starts HAProxy with the configuration {@code config} returns for a free frontend port, once it accepts
     * connections on that port. {@code config} gets the port to bind {@code 127.0.0.1:PORT} to; the file is
     * kept in {@code dir} for a failing test to show.
     */
    public static HAProxyProcess start(Path dir, IntFunction<String> config) throws IOException {
        Path binary = binary();
        return new HAProxyProcess(ExternalProcess.builder("haproxy")
                .command((own, port) -> {
                    Path conf = dir.resolve("haproxy-" + port + ".cfg");
                    Files.writeString(conf, config.apply(port));
                    return List.of(binary.toString(), "-db", "-f", conf.toString());
                })
                .start());
    }

    public int port() {
        return process.port();
    }

    /** What HAProxy wrote (its warnings, alerts and, with {@code log stdout}, its log). */
    public String output() {
        return process.output();
    }

    @Override
    public void close() {
        process.close();
    }
}
