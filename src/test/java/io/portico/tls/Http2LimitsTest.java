package io.portico.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TestServers;
import io.portico.tls.Http2Test.RawH2;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2's limits with raw frames over h2c: flow control (Portico never sends past the window a client gave, resumes
 * on WINDOW_UPDATE, and stops reading an upstream whose body the client is not taking), frame sizes both ways, the
 * idle close (GOAWAY, and only with no stream open), the per-stream client timeouts (a stalled body gets its 408,
 * a stream the client stopped reading its reset, and the connection's other streams carry on), and that
 * {@code Upgrade: h2c} on an HTTP/1.1 request is ignored as nginx does.
 */
class Http2LimitsTest {
    static Path dir;
    static byte[] file;
    static ServerSocket app;
    /** Body bytes the test upstream has written of its latest /big/ response. */
    static final AtomicLong written = new AtomicLong();
    /** Keeps the default timeouts: the flow-control tests stall on purpose. */
    static PorticoServer patient;
    /** Short keep-alive, body and send timeouts; an h2c listener, then a plain HTTP/1.1 one. */
    static PorticoServer quick;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("portico-h2-limits");
        Files.createDirectories(dir.resolve("www"));
        file = new byte[600 * 1024 + 7];
        new Random(3).nextBytes(file);
        Files.write(dir.resolve("www/file.bin"), file);
        app = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(Http2LimitsTest::serve, "h2-limits-app");
        t.setDaemon(true);
        t.start();
        String common = "upstreams { app { servers = [\"127.0.0.1:" + app.getLocalPort() + "\"] } }\n"
                + "locations = [ { path = \"/files/\", alias = \"" + dir.resolve("www") + "/\" },"
                + " { exact = \"/ret\", return = { status = 200, body = \"ret\" } },"
                + " { path = \"/stream/\", proxy = app, proxy-response-buffering = false },"
                + " { path = \"/\", proxy = app } ]\n";
        patient = TestServers.start("listen = [ { address = \"127.0.0.1:0\", http2 = on } ]\n" + common);
        quick = TestServers.start("listen = [ { address = \"127.0.0.1:0\", http2 = on }, \"127.0.0.1:0\" ]\n"
                + "limits { keepalive-timeout = 1s, client-body-timeout = 1s, client-body-min-rate = 0,"
                + " send-timeout = 1s }\n" + common);
    }

    @AfterAll
    static void stop() throws Exception {
        patient.stop();
        quick.stop();
        app.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static int port(PorticoServer s, int i) {
        return s.localAddresses().get(i).getPort();
    }

    /** The byte at {@code i} of every /big/ body. */
    static byte pattern(long i) {
        return (byte) (i % 251);
    }

    /**
     * The upstream, a thread per connection: /big/N answers N pattern bytes (counting them in {@link #written}),
     * /slow after 2.5 s, a POST once its whole body came, anything else with the request head it received.
     */
    private static void serve() {
        while (!app.isClosed()) {
            try {
                Socket s = app.accept();
                Thread t = new Thread(() -> answer(s), "h2-limits-app-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed at the end of the class
            }
        }
    }

    private static void answer(Socket socket) {
        try (Socket s = socket) {
            s.setSoTimeout(20_000);
            InputStream in = s.getInputStream();
            String head = TlsListenerTest.Exchange.head(in);
            String target = head.split(" ", 3)[1];
            OutputStream o = s.getOutputStream();
            if (target.contains("/big/")) {
                long n = Long.parseLong(target.substring(target.indexOf("/big/") + 5));
                written.set(0);
                o.write(("HTTP/1.1 200 OK\r\nContent-Length: " + n + "\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                byte[] chunk = new byte[16 * 1024];
                for (long off = 0; off < n; off += chunk.length) {
                    int len = (int) Math.min(chunk.length, n - off);
                    for (int i = 0; i < len; i++) {
                        chunk[i] = pattern(off + i);
                    }
                    o.write(chunk, 0, len);
                    written.addAndGet(len);
                }
                return;
            }
            String body;
            if (target.equals("/slow")) {
                Thread.sleep(2500);
                body = "slow";
            } else if (head.startsWith("POST")) {
                int length = 0;
                for (String line : head.split("\r\n")) {
                    if (line.toLowerCase().startsWith("content-length:")) {
                        length = Integer.parseInt(line.substring(15).trim());
                    }
                }
                body = "got " + in.readNBytes(length).length;
            } else {
                body = head;
            }
            byte[] out = body.getBytes(StandardCharsets.ISO_8859_1);
            o.write(("HTTP/1.1 200 OK\r\nContent-Length: " + out.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            o.write(out);
        } catch (IOException | InterruptedException e) {
            // a connection Portico closed first (a stream reset, a timeout): nothing to answer
        }
    }

    /** An HTTP/2 client over {@link RawH2} with Netty's HPACK coder: one decoder, as the table is per connection. */
    static final class Client implements AutoCloseable {
        final RawH2 raw;
        final DefaultHttp2HeadersEncoder encoder = new DefaultHttp2HeadersEncoder();
        final DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(false);

        /** @param window the client's SETTINGS_INITIAL_WINDOW_SIZE */
        Client(int port, int window) throws IOException {
            raw = new RawH2(port, new byte[] {0, 0x4, (byte) (window >> 24), (byte) (window >> 16),
                    (byte) (window >> 8), (byte) window});
        }

        void request(int stream, String method, String path, boolean end, CharSequence... fields)
                throws IOException {
            Http2Headers h = new DefaultHttp2Headers().method(method).scheme("http").path(path).authority("x");
            for (int i = 0; i < fields.length; i += 2) {
                h.add(fields[i], fields[i + 1]);
            }
            ByteBuf b = Unpooled.buffer();
            try {
                encoder.encodeHeaders(stream, h, b);
                byte[] block = new byte[b.readableBytes()];
                b.readBytes(block);
                raw.frame(0x1, 0x4 | (end ? 0x1 : 0), stream, block);
            } catch (Http2Exception e) {
                throw new IOException(e);
            } finally {
                b.release();
            }
        }

        void windowUpdate(int stream, int n) throws IOException {
            raw.frame(0x8, 0, stream, new byte[] {(byte) (n >> 24), (byte) (n >> 16), (byte) (n >> 8), (byte) n});
        }

        /** The next frame, its header block decoded on the way (HEADERS carry END_HEADERS here: small heads). */
        Read next() throws IOException {
            RawH2.Frame f = raw.read();
            Http2Headers headers = null;
            if (f.type() == 0x1) {
                try {
                    headers = decoder.decodeHeaders(f.stream(), Unpooled.wrappedBuffer(f.payload()));
                } catch (Http2Exception e) {
                    throw new IOException(e);
                }
            }
            return new Read(f, headers);
        }

        /** The frames that arrive in {@code millis} (none expected to be DATA of {@code stream}): its DATA bytes. */
        int dataWithin(int stream, int millis, Download d) throws IOException {
            raw.socket.setSoTimeout(millis);
            int n = 0;
            try {
                while (true) {
                    Read r = next();
                    if (r.frame().type() == 0x0 && r.frame().stream() == stream) {
                        n += r.frame().payload().length;
                        d.body.writeBytes(r.frame().payload());
                    }
                }
            } catch (SocketTimeoutException quiet) {
                return n;
            } finally {
                raw.socket.setSoTimeout(5000);
            }
        }

        @Override
        public void close() throws IOException {
            raw.close();
        }
    }

    record Read(RawH2.Frame frame, Http2Headers headers) {}

    /** What a download saw: its status, its body, its largest DATA frame, and bytes beyond any window granted. */
    static final class Download {
        String status;
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
        int largestFrame;
        long overWindow;
        int resetCode = -1;
    }

    /**
     * Reads stream {@code stream} to its end as a careful client does: each DATA frame's bytes are given back with
     * WINDOW_UPDATE on the stream and the connection, after checking that it fit the windows granted so far. With
     * {@code checkStall}, the first time the stream's window is used up it checks that nothing more comes.
     */
    static Download download(Client c, int stream, int window, boolean checkStall) throws IOException {
        Download d = new Download();
        long granted = window;
        long connectionGranted = 65_535;
        long received = 0;
        boolean stallChecked = !checkStall;
        while (true) {
            Read r = c.next();
            RawH2.Frame f = r.frame();
            if (f.stream() != stream) {
                continue;
            }
            if (f.type() == 0x3) {
                d.resetCode = java.nio.ByteBuffer.wrap(f.payload()).getInt();
                return d;
            }
            if (f.type() == 0x1) {
                d.status = String.valueOf(r.headers().status());
            } else if (f.type() == 0x0) {
                int n = f.payload().length;
                d.body.writeBytes(f.payload());
                d.largestFrame = Math.max(d.largestFrame, n);
                received += n;
                d.overWindow = Math.max(d.overWindow, Math.max(received - granted, received - connectionGranted));
                if (!stallChecked && received == granted) {
                    stallChecked = true;
                    int more = c.dataWithin(stream, 400, d);
                    received += more;
                    d.overWindow = Math.max(d.overWindow, received - granted);
                }
                if (n > 0) {
                    c.windowUpdate(stream, n);
                    c.windowUpdate(0, n);
                    granted += n;
                    connectionGranted += n;
                }
            }
            if ((f.flags() & 0x1) != 0) {
                return d;
            }
        }
    }

    @Test
    void aSmallWindowGetsAStaticFileWholeAndNothingPastTheWindow() throws Exception {
        try (Client c = new Client(port(patient, 0), 1000)) {
            c.request(1, "GET", "/files/file.bin", true);
            Download d = download(c, 1, 1000, true);
            assertThat(d.status).isEqualTo("200");
            assertThat(d.overWindow).as("bytes sent beyond the window").isZero();
            assertThat(d.largestFrame).isLessThanOrEqualTo(1000);
            assertThat(d.body.toByteArray()).isEqualTo(file);
        }
    }

    @Test
    void aSmallWindowGetsAProxiedBodyWholeAndNothingPastTheWindow() throws Exception {
        int n = 2 * 1024 * 1024 + 5;
        try (Client c = new Client(port(patient, 0), 4096)) {
            c.request(1, "GET", "/big/" + n, true);
            Download d = download(c, 1, 4096, true);
            assertThat(d.status).isEqualTo("200");
            assertThat(d.overWindow).as("bytes sent beyond the window").isZero();
            byte[] body = d.body.toByteArray();
            assertThat(body).hasSize(n);
            for (int i = 0; i < n; i++) {
                if (body[i] != pattern(i)) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }
        }
    }

    @Test
    void aClientThatStopsGrantingWindowPausesAStreamedUpstream() throws Exception {
        long n = 256L * 1024 * 1024; // far more than any buffer on the way could hold
        try (Client c = new Client(port(patient, 0), 65_535)) {
            c.request(1, "GET", "/stream/big/" + n, true); // proxy-response-buffering = false
            Download d = new Download();
            int got = c.dataWithin(1, 2500, d);
            assertThat(got).as("a stream's default window, then nothing").isEqualTo(65_535);
            long first = written.get();
            Thread.sleep(1000);
            long second = written.get();
            // What the upstream could write is what the sockets between hold, a few MiB on loopback at most
            assertThat(first).as("upstream bytes written while the client takes nothing").isLessThan(32L << 20);
            assertThat(second - first).as("upstream bytes written in a further second").isLessThan(1L << 20);
            c.windowUpdate(1, 1 << 20);
            c.windowUpdate(0, 1 << 20);
            assertThat(c.dataWithin(1, 1500, d)).as("WINDOW_UPDATE resumes the stream").isEqualTo(1 << 20);
            byte[] body = d.body.toByteArray();
            for (int i = 0; i < body.length; i++) {
                if (body[i] != pattern(i)) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }
        }
    }

    @Test
    void aBufferedUpstreamIsTakenWholeWhileTheClientWaitsThenRelayedFromTheSpill() throws Exception {
        // proxy-response-buffering (the default, as nginx's proxy_buffering): proxy-buffers in memory, then a temp
        // file, so the upstream is freed although the client reads nothing; the client then gets every byte.
        int n = 12 * 1024 * 1024 + 3;
        try (Client c = new Client(port(patient, 0), 65_535)) {
            c.request(1, "GET", "/big/" + n, true);
            Download stalled = new Download();
            assertThat(c.dataWithin(1, 2000, stalled)).isEqualTo(65_535);
            assertThat(written.get()).as("the upstream's whole body, taken while the client waits").isEqualTo(n);
            c.windowUpdate(1, 65_535);
            c.windowUpdate(0, 65_535);
            Download d = download(c, 1, 65_535, false);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.writeBytes(stalled.body.toByteArray());
            all.writeBytes(d.body.toByteArray());
            byte[] body = all.toByteArray();
            assertThat(body).hasSize(n);
            for (int i = 0; i < n; i++) {
                if (body[i] != pattern(i)) {
                    throw new AssertionError("byte " + i + " differs");
                }
            }
        }
    }

    @Test
    void dataFramesNeverExceedTheClientsMaxFrameSize() throws Exception {
        try (Client c = new Client(port(patient, 0), 1 << 20)) {
            c.windowUpdate(0, 1 << 20);
            c.request(1, "GET", "/files/file.bin", true);
            Download d = download(c, 1, 1 << 20, false);
            assertThat(d.body.toByteArray()).isEqualTo(file);
            // the client announced no SETTINGS_MAX_FRAME_SIZE: RFC 9113's 16,384 holds, and was used whole
            assertThat(d.largestFrame).isEqualTo(16_384);
        }
    }

    @Test
    void aFrameOverMaxFrameSizeGetsGoAwayFrameSizeError() throws Exception {
        try (Client c = new Client(port(patient, 0), 65_535)) {
            c.request(1, "POST", "/app/post", false, "content-length", "20000");
            c.raw.frame(0x0, 0x1, 1, new byte[16_385]); // DATA one byte over max-frame-size (16k)
            assertThat(c.raw.goAwayCode()).as("GOAWAY FRAME_SIZE_ERROR").isEqualTo(0x6);
        }
    }

    @Test
    void anIdleConnectionGetsGoAwayNoErrorThenCloses() throws Exception {
        try (Client c = new Client(port(quick, 0), 65_535)) {
            long start = System.nanoTime();
            assertThat(c.raw.goAwayCode()).as("GOAWAY NO_ERROR after keepalive-timeout").isEqualTo(0x0);
            assertThat(System.nanoTime() - start).isGreaterThan(800_000_000L);
            assertThat(c.raw.in.read()).as("then the connection closes").isEqualTo(-1);
        }
    }

    @Test
    void aConnectionWithAStreamOpenIsNotIdle() throws Exception {
        try (Client c = new Client(port(quick, 0), 65_535)) {
            c.request(1, "GET", "/slow", true); // 2.5 s upstream, keepalive-timeout 1s
            Download d = download(c, 1, 65_535, false);
            assertThat(d.status).isEqualTo("200");
            assertThat(d.body.toString(StandardCharsets.US_ASCII)).isEqualTo("slow");
        }
    }

    @Test
    void aStalledRequestBodyGets408OnItsStreamAndTheConnectionServesOn() throws Exception {
        try (Client c = new Client(port(quick, 0), 65_535)) {
            c.request(1, "POST", "/app/post", false, "content-length", "100");
            c.raw.frame(0x0, 0, 1, new byte[10]); // 10 of 100 bytes, then nothing (client-body-timeout 1s)
            long start = System.nanoTime();
            Download d = download(c, 1, 65_535, false);
            assertThat(System.nanoTime() - start).isGreaterThan(800_000_000L);
            assertThat(d.status).as("the stalled stream's answer").isEqualTo("408");
            c.request(3, "GET", "/ret", true);
            Download next = download(c, 3, 65_535, false);
            assertThat(next.status).isEqualTo("200");
            assertThat(next.body.toString(StandardCharsets.US_ASCII)).isEqualTo("ret");
        }
    }

    @Test
    void aStreamTheClientStopsReadingIsResetAfterSendTimeoutAndTheConnectionServesOn() throws Exception {
        try (Client c = new Client(port(quick, 0), 100)) {
            c.request(1, "GET", "/files/file.bin", true); // 100 bytes of window, never more (send-timeout 1s)
            long start = System.nanoTime();
            Download d = new Download();
            int resetCode = -1;
            while (resetCode < 0 && System.nanoTime() - start < 5_000_000_000L) {
                Read r = c.next();
                if (r.frame().stream() == 1 && r.frame().type() == 0x3) {
                    resetCode = java.nio.ByteBuffer.wrap(r.frame().payload()).getInt();
                } else if (r.frame().stream() == 1 && r.frame().type() == 0x0) {
                    d.body.writeBytes(r.frame().payload());
                }
            }
            assertThat(System.nanoTime() - start).isGreaterThan(800_000_000L);
            assertThat(resetCode).as("RST_STREAM CANCEL on the stream the client stopped reading").isEqualTo(0x8);
            assertThat(d.body.size()).isEqualTo(100);
            c.request(3, "GET", "/ret", true);
            Download next = download(c, 3, 100, false);
            assertThat(next.status).isEqualTo("200");
        }
    }

    /** An HTTP/1.1 request asking to upgrade to h2c, RFC 7540 3.2 (removed from RFC 9113). */
    static final String UPGRADE = "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
            + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n";

    @Test
    void upgradeToH2cIsIgnoredAndTheRequestServedOverHttp11() throws Exception {
        for (int listener = 0; listener < 2; listener++) { // http2 = on, then a plain listener (auto)
            try (RawHttp c = new RawHttp(port(quick, listener))) {
                Response r = c.send(UPGRADE).read();
                assertThat(r.head()).as("listener " + listener).startsWith("HTTP/1.1 200 ");
                String upstreamSaw = r.latin1().toLowerCase();
                assertThat(upstreamSaw).startsWith("get /echo http/1.1").doesNotContain("upgrade", "http2-settings");
            }
        }
    }
}
