package io.portico.proxy;

import io.portico.testing.ExternalProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;

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

    private final ExternalProcess process;
    private final String address;
    private final Path dir;

    private UwsgiServer(ExternalProcess process, String address, Path dir) {
        this.process = process;
        this.address = address;
        this.dir = dir;
    }

    /** On a free loopback port. */
    static UwsgiServer tcp(Path dir) throws IOException {
        ExternalProcess p = start(dir, port -> "127.0.0.1:" + port, ExternalProcess::acceptsTcp);
        return new UwsgiServer(p, "127.0.0.1:" + p.port(), dir);
    }

    /** On {@code dir/app.sock}. */
    static UwsgiServer unix(Path dir) throws IOException {
        Path sock = dir.resolve("app.sock");
        return new UwsgiServer(start(dir, port -> sock.toString(), ExternalProcess.acceptsUnix(sock)), "unix:" + sock,
                dir);
    }

    private static ExternalProcess start(Path dir, IntFunction<String> socket, ExternalProcess.Probe ready)
            throws IOException {
        ExternalProcess.require(ExternalProcess.onPath("uwsgi")
                        && Files.exists(Path.of("/usr/lib/uwsgi/plugins/python3_plugin.so")),
                "uwsgi with its python3 plugin is not installed (apt-get install -y uwsgi uwsgi-plugin-python3)",
                "CI", "PORTICO_REQUIRE_UWSGI");
        Files.writeString(dir.resolve("app.py"), APP);
        return ExternalProcess.builder("uwsgi")
                .command((own, port) -> List.of("uwsgi", "--plugin", "python3", "--uwsgi-socket", socket.apply(port),
                        "--master", "--processes", "3", "--chdir", dir.toString(), "--wsgi-file", "app.py",
                        "--need-app", "--die-on-term"))
                .ready(ready)
                .grace(Duration.ofSeconds(10))
                .start();
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

    @Override
    public void close() {
        process.close();
    }
}
