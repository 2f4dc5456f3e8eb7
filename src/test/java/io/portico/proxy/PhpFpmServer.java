package io.portico.proxy;

import io.portico.testing.ExternalProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
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
        {"nap.php", "<?php usleep(200000); echo 'rested';"},
        {"large.php", "<?php echo str_repeat('x', (int) $_SERVER['QUERY_STRING']);"},
    };

    private final ExternalProcess process;
    private final Path root;
    private final Path unixSocket; // null on a loopback port

    private PhpFpmServer(ExternalProcess process, Path root, Path unixSocket) {
        this.process = process;
        this.root = root;
        this.unixSocket = unixSocket;
    }

    static PhpFpmServer start(Path dir) throws IOException {
        return start(dir, false);
    }

    /** With {@code unix}, on {@code dir/fpm.sock} instead of a loopback port. */
    static PhpFpmServer start(Path dir, boolean unix) throws IOException {
        return start(dir, unix, 3);
    }

    /** With {@code children} PHP-FPM children ({@code pm = static}). */
    static PhpFpmServer start(Path dir, boolean unix, int children) throws IOException {
        Optional<Path> binary = binary();
        ExternalProcess.require(binary.isPresent(), "php-fpm is not installed (apt-get install -y php-fpm)",
                "CI", "PORTICO_REQUIRE_PHP_FPM");
        Path www = dir.resolve("www");
        Files.createDirectories(www);
        for (String[] s : SCRIPTS) {
            Files.writeString(www.resolve(s[0]), s[1]);
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path sock = unix ? dir.resolve("fpm.sock") : null;
        Path log = dir.resolve("fpm.log");
        ExternalProcess fpm = ExternalProcess.builder("php-fpm")
                .command((own, port) -> {
                    Path conf = own.resolve("fpm.conf");
                    Files.writeString(conf, "[global]\nerror_log = " + log + "\ndaemonize = no\npid = "
                            + own.resolve("fpm.pid") + "\n[www]\n" + (root ? "user = root\ngroup = root\n" : "")
                            + "listen = " + (unix ? sock.toString() : "127.0.0.1:" + port)
                            + "\npm = static\npm.max_children = " + children + "\nclear_env = no\nping.path = /ping\n");
                    return root ? List.of(binary.get().toString(), "-F", "-y", conf.toString(), "-R")
                            : List.of(binary.get().toString(), "-F", "-y", conf.toString());
                })
                .ready(unix ? ExternalProcess.acceptsUnix(sock) : ExternalProcess::acceptsTcp)
                .log(log)
                .grace(Duration.ofSeconds(10))
                .start();
        return new PhpFpmServer(fpm, www, sock);
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

    /** As an upstream server names it without the scheme: 127.0.0.1:PORT or unix:/path. */
    String address() {
        return unixSocket != null ? "unix:" + unixSocket : "127.0.0.1:" + process.port();
    }

    Path root() {
        return root;
    }

    @Override
    public void close() {
        process.close();
    }
}
