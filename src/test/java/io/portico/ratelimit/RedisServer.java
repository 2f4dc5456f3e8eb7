package io.portico.ratelimit;

import io.portico.testing.ExternalProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real {@code redis-server} on a free loopback port, without persistence, for the tests of shared zones. One is
 * started per test JVM on first use and stopped when the JVM exits. Without {@code redis-server} on the PATH the
 * tests that need it are skipped, unless {@code PORTICO_REQUIRE_REDIS=1} (CI sets it) makes that a failure.
 */
public final class RedisServer {
    private static RedisServer shared;

    private final ExternalProcess process;
    private final int port;
    /** The TLS port of {@link #startTls}; 0 otherwise. */
    private int tlsPort;

    private RedisServer(ExternalProcess process) {
        this.process = process;
        this.port = process.port();
    }

    /**
     * A server that also speaks TLS (Debian's redis-server is built with it), with {@code cert} and {@code key}
     * (PEM) on {@link #tlsPort}; clients need no certificate. The plain port stays for the fixture's PING.
     */
    static RedisServer startTls(Path cert, Path key) throws IOException {
        int tls = ExternalProcess.freePort();
        RedisServer server = start((dir, port) -> List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning",
                "--tls-port", Integer.toString(tls), "--tls-cert-file", cert.toString(), "--tls-key-file",
                key.toString(), "--tls-ca-cert-file", cert.toString(), "--tls-auth-clients", "no"));
        server.tlsPort = tls;
        return server;
    }

    int tlsPort() {
        return tlsPort;
    }

    /** The JVM's server, started on first use. */
    public static synchronized RedisServer shared() {
        if (shared == null) {
            shared = start();
            RedisServer started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "redis-server-stop"));
        }
        return shared;
    }

    /** A server of the caller's own (to stop, as a Redis outage), on a free port. */
    public static RedisServer start() {
        return start((dir, port) -> List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--loglevel", "warning", "--enable-debug-command", "local"));
    }

    /** A Redis Sentinel watching {@code master} under the name {@code name} (its configuration in its temp dir). */
    static RedisServer sentinel(RedisServer master, String name) {
        return start((dir, port) -> {
            Path conf = dir.resolve("sentinel.conf");
            Files.writeString(conf, "port " + port + "\nbind 127.0.0.1\nsentinel monitor " + name
                    + " 127.0.0.1 " + master.port + " 1\n");
            return List.of("redis-server", conf.toString(), "--sentinel", "--loglevel", "warning");
        });
    }

    private static RedisServer start(ExternalProcess.Command command) {
        requireInstalled("redis-server");
        return new RedisServer(ExternalProcess.builder("redis-server").command(command)
                .ready(port -> Resp.command(port, "PING").equals("PONG"))
                .deadline(Duration.ofSeconds(10))
                .start());
    }

    /** Skips the test without {@code binaries} on the PATH (fails it where PORTICO_REQUIRE_REDIS=1). */
    static void requireInstalled(String... binaries) {
        ExternalProcess.require(java.util.Arrays.stream(binaries).allMatch(ExternalProcess::onPath),
                "redis-server is not installed (apt-get install -y redis-server)", "PORTICO_REQUIRE_REDIS");
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** One command (tests in other packages: an ACL user, a setting); the reply as {@link Resp} gives it. */
    public String command(String... args) throws IOException {
        return Resp.command(port, args);
    }

    /**
     * Makes the server unresponsive for {@code seconds} (DEBUG SLEEP), without waiting for it to wake up; returns
     * once it sleeps (a PING unanswered for 50 ms), some 50-100 ms into the sleep. The command alone did not say
     * when: a Portico whose event loop writes its command itself (no hop to another thread) had it answered before
     * Redis read the DEBUG SLEEP, now and then, under load.
     */
    void freeze(int seconds) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.getOutputStream().write(("DEBUG SLEEP " + seconds + "\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
        }
        for (int i = 0; i < 100; i++) {
            try (Socket probe = new Socket()) {
                probe.connect(new InetSocketAddress("127.0.0.1", port), 1000); // the kernel accepts it: Redis need not
                probe.setSoTimeout(50);
                probe.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                probe.getOutputStream().flush();
                probe.getInputStream().read(); // answered: not asleep yet
            } catch (java.net.SocketTimeoutException asleep) {
                return;
            }
        }
        throw new IllegalStateException("redis on port " + port + " still answers after DEBUG SLEEP");
    }

    public void stop() {
        process.close();
    }

}
