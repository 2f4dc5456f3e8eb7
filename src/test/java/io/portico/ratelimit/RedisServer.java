package io.portico.ratelimit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} on a free loopback port, without persistence, for the tests of shared zones. One is
 * started per test JVM on first use and stopped when the JVM exits. Without {@code redis-server} on the PATH the
 * tests that need it are skipped, unless {@code PORTICO_REQUIRE_REDIS=1} (CI sets it) makes that a failure.
 */
public final class RedisServer {
    private static RedisServer shared;

    private final Process process;
    private final int port;
    /** The TLS port of {@link #startTls}; 0 otherwise. */
    private int tlsPort;

    private RedisServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /**
     * A server that also speaks TLS (Debian's redis-server is built with it), with {@code cert} and {@code key}
     * (PEM) on {@link #tlsPort}; clients need no certificate. The plain port stays for the fixture's PING.
     */
    static RedisServer startTls(Path cert, Path key) {
        int tls = freePort();
        RedisServer server = start(port -> new String[] {"redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning",
                "--tls-port", Integer.toString(tls), "--tls-cert-file", cert.toString(), "--tls-key-file",
                key.toString(), "--tls-ca-cert-file", cert.toString(), "--tls-auth-clients", "no"});
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
        return start(port -> new String[] {"redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--loglevel", "warning", "--enable-debug-command", "local"});
    }

    /** A Redis Sentinel watching {@code master} under the name {@code name} (its configuration in a temp file). */
    static RedisServer sentinel(RedisServer master, String name) {
        return start(port -> {
            try {
                Path conf = Files.createTempFile("sentinel", ".conf");
                conf.toFile().deleteOnExit();
                Files.writeString(conf, "port " + port + "\nbind 127.0.0.1\nsentinel monitor " + name
                        + " 127.0.0.1 " + master.port + " 1\n");
                return new String[] {"redis-server", conf.toString(), "--sentinel", "--loglevel", "warning"};
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static RedisServer start(java.util.function.IntFunction<String[]> command) {
        boolean installed = System.getenv("PATH") != null && java.util.Arrays.stream(
                System.getenv("PATH").split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, "redis-server")));
        if (!installed && "1".equals(System.getenv("PORTICO_REQUIRE_REDIS"))) {
            throw new IllegalStateException("redis-server is not installed (apt-get install -y redis-server)");
        }
        assumeTrue(installed, "redis-server is not installed (apt-get install -y redis-server)");
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) { // a free port may be taken before redis binds it
            int port = freePort();
            try {
                Process process = new ProcessBuilder(command.apply(port))
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                RedisServer server = new RedisServer(process, port);
                if (server.awaitPong()) {
                    return server;
                }
                server.stop();
            } catch (IOException e) {
                last = e;
            }
        }
        throw new IllegalStateException("redis-server did not start", last);
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    int port() {
        return port;
    }

    /** Makes the server unresponsive for {@code seconds} (DEBUG SLEEP), without waiting for it to wake up. */
    void freeze(int seconds) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            s.getOutputStream().write(("DEBUG SLEEP " + seconds + "\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
        }
    }

    public void stop() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean awaitPong() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline && process.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                OutputStream out = s.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                byte[] reply = in.readNBytes(7);
                if (new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n")) {
                    return true;
                }
            } catch (IOException e) {
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

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
