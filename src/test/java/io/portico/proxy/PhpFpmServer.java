package io.portico.proxy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PHP-FPM (Debian's {@code php-fpm}) on a free loopback port, serving the scripts of {@link #SCRIPTS} from
 * {@code dir/www}. Without it the tests that need it are skipped, unless {@code CI=true} or
 * {@code PORTICO_REQUIRE_PHP_FPM=1} ({@code .ci/run} sets it) makes that a failure.
 */
final class PhpFpmServer implements AutoCloseable {
    /** name, source: echo.php echoes its string $_SERVER as NAME=value lines, then BODY= and the body. */
    static final String[][] SCRIPTS = {
        {"echo.php", """
            <?php
            header('X-App: php');
            header('Set-Cookie: a=1', false);
            header('Set-Cookie: b=2', false);
            $lines = [];
            foreach ($_SERVER as $k => $v) { if (is_string($v)) { $lines[] = "$k=$v"; } }
            sort($lines);
            echo implode("\\n", $lines), "\\nBODY=", file_get_contents('php://input');
            """},
        {"index.php", "<?php echo 'index of ', $_SERVER['SCRIPT_NAME'];"},
        {"missing.php", "<?php http_response_code(404); echo 'not here';"},
        {"stderr.php", "<?php error_log('oops from php'); echo 'logged';"},
        {"crash.php", "<?php posix_kill(getmypid(), 9);"},
        {"slow.php", "<?php sleep(3); echo 'late';"},
        {"large.php", "<?php echo str_repeat('x', (int) $_SERVER['QUERY_STRING']);"},
    };

    private final Process process;
    private final int port;
    private final Path root;
    private final Path log;

    private PhpFpmServer(Process process, int port, Path root, Path log) {
        this.process = process;
        this.port = port;
        this.root = root;
        this.log = log;
    }

    static PhpFpmServer start(Path dir) throws IOException {
        return start(dir, false);
    }

    /** With {@code unix}, on {@code dir/fpm.sock} instead of a loopback port. */
    static PhpFpmServer start(Path dir, boolean unix) throws IOException {
        Optional<Path> binary = binary();
        String why = "php-fpm is not installed (apt-get install -y php-fpm)";
        if (binary.isEmpty()
                && ("true".equals(System.getenv("CI")) || "1".equals(System.getenv("PORTICO_REQUIRE_PHP_FPM")))) {
            throw new IllegalStateException(why);
        }
        assumeTrue(binary.isPresent(), why);
        Path www = dir.resolve("www");
        Files.createDirectories(www);
        for (String[] s : SCRIPTS) {
            Files.writeString(www.resolve(s[0]), s[1]);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path log = dir.resolve("fpm.log");
        Path conf = dir.resolve("fpm.conf");
        Files.writeString(conf, "[global]\nerror_log = " + log + "\ndaemonize = no\npid = " + dir.resolve("fpm.pid")
                + "\n[www]\n" + (root ? "user = root\ngroup = root\n" : "") + "listen = " + (unix ? dir.resolve("fpm.sock").toString() : "127.0.0.1:" + port)
                + "\npm = static\npm.max_children = 3\nclear_env = no\nping.path = /ping\n");
        ProcessBuilder pb = root
                ? new ProcessBuilder(binary.get().toString(), "-F", "-y", conf.toString(), "-R")
                : new ProcessBuilder(binary.get().toString(), "-F", "-y", conf.toString());
        Process p = pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        PhpFpmServer server = new PhpFpmServer(p, unix ? -1 : port, www, log);
        server.unixSocket = unix ? dir.resolve("fpm.sock") : null;
        server.awaitListening();
        return server;
    }

    private static Optional<Path> binary() {
        String path = System.getenv("PATH") == null ? "" : System.getenv("PATH");
        for (String dir : (path + ":/usr/sbin").split(":")) {
            try (Stream<Path> files = Files.list(Path.of(dir))) {
                Optional<Path> fpm = files.filter(f -> f.getFileName().toString().matches("php-fpm[0-9.]*"))
                        .filter(Files::isExecutable).findFirst();
                if (fpm.isPresent()) {
                    return fpm;
                }
            } catch (IOException | RuntimeException notThere) {
                // next directory
            }
        }
        return Optional.empty();
    }

    private Path unixSocket;

    /** As an upstream server names it without the scheme: 127.0.0.1:PORT or unix:/path. */
    String address() {
        return unixSocket != null ? "unix:" + unixSocket : "127.0.0.1:" + port;
    }

    Path root() {
        return root;
    }

    private void awaitListening() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && process.isAlive()) {
            if (unixSocket != null) {
                try (java.nio.channels.SocketChannel c =
                        java.nio.channels.SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
                    c.connect(java.net.UnixDomainSocketAddress.of(unixSocket));
                    return;
                } catch (IOException notYet) {
                    pause();
                    continue;
                }
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                pause();
            }
        }
        String output = Files.exists(log) ? Files.readString(log) : "(no log)";
        close();
        throw new IllegalStateException("php-fpm did not start: " + output);
    }

    /** Polling a process we do not own the readiness of: there is no future to wait on. */
    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
