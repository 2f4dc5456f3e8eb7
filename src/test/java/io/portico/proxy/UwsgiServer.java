package io.portico.proxy;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real uWSGI (Debian's {@code uwsgi} with {@code uwsgi-plugin-python3}) serving {@link #APP}, a small WSGI app
 * written into a temp directory, on a loopback port or a unix socket, in uwsgi protocol ({@code --uwsgi-socket}).
 * Without uWSGI the tests that need it are skipped, unless {@code CI=true} or {@code PORTICO_REQUIRE_UWSGI=1}
 * ({@code .ci/run} sets it) makes that a failure.
 */
final class UwsgiServer implements AutoCloseable {
    /**
     * Echoes what it received as {@code NAME=value} lines (its string environ, sorted, then {@code BODY=} and the
     * body); {@code /crash} kills its worker before answering (after a line in {@link #crashes}), {@code /slow} answers after 3 s, {@code /large?N}
     * sends N bytes with a Content-Length (each also under {@code /streamed/}), {@code /unframed} 1 MB without one, {@code /status?N} answers N, {@code /headers?N} with N headers (and a Content-Length).
     */
    static final String APP = """
            import os, time

            def application(environ, start_response):
                path = environ.get('PATH_INFO', '')
                if path.startswith('/streamed/'):
                    path = path[len('/streamed'):]
                query = environ.get('QUERY_STRING', '')
                if path == '/crash':
                    with open('crashes', 'a') as f:
                        f.write(environ['REQUEST_METHOD'] + '\\n')
                    os._exit(1)
                if path == '/slow':
                    time.sleep(3)
                if path == '/large':
                    n = int(query)
                    start_response('200 OK', [('Content-Type', 'application/octet-stream'),
                                              ('Content-Length', str(n))])
                    return [b'x' * n]
                if path == '/unframed':
                    start_response('200 OK', [('Content-Type', 'text/plain')])
                    return [b'y' * 100000 for _ in range(10)]
                if path == '/headers':
                    start_response('200 OK', [('X-H%d' % i, 'v') for i in range(int(query))]
                                   + [('Content-Length', '0')])
                    return []
                if path == '/status':
                    start_response(query + ' Whatever', [('Content-Length', '0')])
                    return []
                length = environ.get('CONTENT_LENGTH') or '0'
                body = environ['wsgi.input'].read(int(length))
                lines = sorted(k + '=' + v for k, v in environ.items() if isinstance(v, str))
                out = ('\\n'.join(lines) + '\\nBODY=').encode('latin-1') + body
                start_response('200 OK', [('Content-Type', 'text/plain'), ('Content-Length', str(len(out))),
                                          ('Set-Cookie', 'a=1'), ('Set-Cookie', 'b=2'), ('X-App', 'wsgi')])
                return [out]
            """;

    private final Process process;
    private final String address;
    private final Path log;
    private final Path dir;

    private UwsgiServer(Process process, String address, Path log) {
        this.process = process;
        this.address = address;
        this.log = log;
        this.dir = log.getParent();
    }

    /** On a free loopback port. */
    static UwsgiServer tcp(Path dir) throws IOException {
        int port = freePort();
        String socket = "127.0.0.1:" + port;
        UwsgiServer s = start(dir, socket, socket);
        s.awaitTcp(port);
        return s;
    }

    /** On {@code dir/app.sock}. */
    static UwsgiServer unix(Path dir) throws IOException {
        Path sock = dir.resolve("app.sock");
        UwsgiServer s = start(dir, sock.toString(), "unix:" + sock);
        s.awaitUnix(sock);
        return s;
    }

    private static UwsgiServer start(Path dir, String socket, String address) throws IOException {
        requireInstalled();
        Files.writeString(dir.resolve("app.py"), APP);
        Path log = dir.resolve("uwsgi.log");
        List<String> command = new ArrayList<>(List.of("uwsgi", "--plugin", "python3", "--uwsgi-socket", socket,
                "--master", "--processes", "3", "--chdir", dir.toString(), "--wsgi-file", "app.py",
                "--need-app", "--die-on-term", "--logto", log.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return new UwsgiServer(p, address, log);
    }

    private static void requireInstalled() {
        boolean installed = System.getenv("PATH") != null && java.util.Arrays.stream(System.getenv("PATH").split(":"))
                .anyMatch(d -> Files.isExecutable(Path.of(d, "uwsgi")))
                && Files.exists(Path.of("/usr/lib/uwsgi/plugins/python3_plugin.so"));
        String why = "uwsgi with its python3 plugin is not installed (apt-get install -y uwsgi uwsgi-plugin-python3)";
        if (!installed && ("true".equals(System.getenv("CI")) || "1".equals(System.getenv("PORTICO_REQUIRE_UWSGI")))) {
            throw new IllegalStateException(why);
        }
        assumeTrue(installed, why);
    }

    /** The address as an upstream server names it, without the scheme: 127.0.0.1:PORT or unix:/path. */
    String address() {
        return address;
    }

    /** The methods of the requests that crashed a worker, in order. */
    List<String> crashes() throws IOException {
        Path file = dir.resolve("crashes");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private void awaitTcp(int port) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && process.isAlive()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                pause();
            }
        }
        failed();
    }

    private void awaitUnix(Path sock) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && process.isAlive()) {
            try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                c.connect(UnixDomainSocketAddress.of(sock));
                return;
            } catch (IOException notYet) {
                pause();
            }
        }
        failed();
    }

    private void failed() throws IOException {
        String output = Files.exists(log) ? Files.readString(log) : "(no log)";
        close();
        throw new IllegalStateException("uwsgi did not start: " + output);
    }

    /** Polling a process we do not own the readiness of: there is no future to wait on. */
    private static void pause() {
        try {
            Thread.sleep(50);
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
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
