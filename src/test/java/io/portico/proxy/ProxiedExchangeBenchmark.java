package io.portico.proxy;

import io.portico.server.PorticoServer;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One proxied exchange over real loopback sockets: a blocking keep-alive client, the real server with one worker
 * and one upstream location, and a fixed-answer upstream on blocking sockets (a thread per connection). {@code
 * direct} sends the same request to the upstream itself, so the difference between the two is what the proxy adds:
 * {@code gc.alloc.rate.norm} of {@code -prof gc} (JMH sums the bytes every thread allocated, the server's loop among
 * them) and time per exchange (noisy on a shared box: the kernel's loopback work is in it).
 *
 * <p>The client and the upstream allocate nothing per exchange: both read into and write from byte arrays they keep,
 * and the JDK's socket streams copy through a direct buffer it caches per thread. So {@code direct} measures only
 * what threads outside the exchange allocate meanwhile (JMH's own, the JIT's, a loaded box's), and {@code proxied}
 * is Portico's share plus that. (The upstream was a Netty server writing a {@code duplicate()} of one read-only
 * buffer: about 250 B per exchange of buffer views and NIO buffers, in both figures.)
 *
 * <p>{@code static} asks the same server for a 1 KiB file of a static location instead (the file cache hot after the
 * warm-up), the same client on the same kind of connection, so {@code static} minus {@code direct} is what Portico
 * allocates to serve a small file.
 *
 * <pre>mvn -q -o test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -cp target/test-classes:target/classes:$(cat /tmp/cp.txt) org.openjdk.jmh.Main ProxiedExchangeBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "-Xms256m", "-Xmx256m"})
public class ProxiedExchangeBenchmark {
    /**
     * proxied: through Portico; direct: to the upstream itself (the client's and the upstream's share); static: a
     * 1 KiB file from a static location of Portico.
     */
    @Param({"proxied", "direct", "static"})
    String path;

    private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n"
            + "Hello, World!").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CONTENT_LENGTH = "\ncontent-length:".getBytes(StandardCharsets.US_ASCII);

    private ServerSocket upstream;
    private PorticoServer portico;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] request;
    private Path site;
    private final byte[] buffer = new byte[16384];

    @Setup(Level.Trial)
    public void setup() throws Exception {
        upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> FixedAnswer.accept(upstream), "upstream-accept");
        acceptor.setDaemon(true);
        acceptor.start();
        int upstreamPort = upstream.getLocalPort();
        site = Files.createTempDirectory("portico-bench");
        Files.write(site.resolve("1k.txt"), "0123456789abcde\n".repeat(64).getBytes(StandardCharsets.US_ASCII));
        portico = TestServers.start("limits.keepalive-requests = 2147483647\n"
                + "upstreams { app { servers = [\"127.0.0.1:" + upstreamPort + "\"], keepalive = 16 } }\n"
                + "locations = [ { path = \"/static/\", alias = \"" + site + "/\" },\n"
                + "  { path = \"/\", proxy = app } ]\n");
        int port = path.equals("direct") ? upstreamPort : TestServers.port(portico);
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = socket.getInputStream();
        String target = path.equals("static") ? "/static/1k.txt" : "/hello";
        request = ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUser-Agent: jmh\r\n"
                        + "Accept: */*\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 1000; i++) {
            exchange();
        }
    }

    @Benchmark
    public int exchange() throws IOException {
        out.write(request);
        return readResponse();
    }

    /** Reads one response with a Content-Length body; returns its size. No allocation. */
    private int readResponse() throws IOException {
        int n = 0;
        int headEnd = -1;
        while (headEnd < 0) {
            int r = in.read(buffer, n, buffer.length - n);
            if (r < 0) {
                throw new IOException("closed after " + n + " bytes");
            }
            n += r;
            headEnd = headEnd(n);
        }
        int total = headEnd + contentLength(headEnd);
        while (n < total) {
            int r = in.read(buffer, n, total - n);
            if (r < 0) {
                throw new IOException("closed in the body");
            }
            n += r;
        }
        if (n != total) {
            throw new IOException("more than one response: " + n + " bytes, " + total + " expected");
        }
        return n;
    }

    private int headEnd(int n) {
        for (int i = 3; i < n; i++) {
            if (buffer[i] == '\n' && buffer[i - 1] == '\r' && buffer[i - 2] == '\n' && buffer[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    private int contentLength(int headEnd) throws IOException {
        outer:
        for (int i = 0; i + CONTENT_LENGTH.length < headEnd; i++) {
            for (int j = 0; j < CONTENT_LENGTH.length; j++) {
                if (Character.toLowerCase(buffer[i + j]) != CONTENT_LENGTH[j]) {
                    continue outer;
                }
            }
            int v = 0;
            for (int k = i + CONTENT_LENGTH.length; buffer[k] != '\r'; k++) {
                if (buffer[k] >= '0' && buffer[k] <= '9') {
                    v = v * 10 + buffer[k] - '0';
                }
            }
            return v;
        }
        throw new IOException("no Content-Length");
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        socket.close();
        portico.stop();
        upstream.close(); // its connections end when Portico's pool closes them
        Files.delete(site.resolve("1k.txt"));
        Files.delete(site);
    }

    /**
     * Answers each request head (its blank line) with {@link #ANSWER}, on blocking sockets: a thread per connection
     * reading into one array it keeps, so an exchange allocates nothing here.
     */
    private static final class FixedAnswer {
        static void accept(ServerSocket server) {
            try {
                while (true) {
                    Socket s = server.accept();
                    Thread t = new Thread(() -> answer(s), "upstream-" + s.getPort());
                    t.setDaemon(true);
                    t.start();
                }
            } catch (IOException e) {
                // the server socket was closed: the trial is over
            }
        }

        private static void answer(Socket s) {
            byte[] buf = new byte[16384];
            int matched = 0; // bytes of "\r\n\r\n" seen at the end of the last read
            try (s) {
                s.setTcpNoDelay(true);
                InputStream in = s.getInputStream();
                OutputStream out = s.getOutputStream();
                for (int r; (r = in.read(buf)) > 0; ) {
                    for (int i = 0; i < r; i++) {
                        byte c = buf[i];
                        matched = c == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : c == '\r' ? 1 : 0;
                        if (matched == 4) {
                            matched = 0;
                            out.write(ANSWER);
                        }
                    }
                }
            } catch (IOException e) {
                // Portico closed the connection
            }
        }
    }
}
