package io.portico.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.server.PorticoServer;
import io.portico.testing.RawHttp;
import io.portico.testing.TestCertificates;
import io.portico.testing.TestCertificates.Issued;
import io.portico.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 to clients: curl over TLS (ALPN h2) and over h2c with prior knowledge against static, proxy, return and
 * rate-limited locations, the SETTINGS Portico announces, and the rapid-reset and CONTINUATION-flood defences,
 * the last three with raw frames.
 */
class Http2Test {
    static Path dir;
    static Issued cert;
    static byte[] big;
    static ServerSocket app;
    static PorticoServer server;
    static int tlsPort;
    static int h2cPort;
    static int plainPort;

    @BeforeAll
    static void start() throws Exception {
        dir = Files.createTempDirectory("portico-h2");
        cert = TestCertificates.issue(dir, "h2", List.of("a.test", "b.test"));
        Files.createDirectories(dir.resolve("www"));
        Files.writeString(dir.resolve("www/hello.txt"), "hello over h2");
        big = new byte[2 * 1024 * 1024 + 3];
        new Random(2).nextBytes(big);
        Files.write(dir.resolve("www/big.bin"), big);
        app = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        Thread t = new Thread(Http2Test::echoHeads, "h2-test-app");
        t.setDaemon(true);
        t.start();
        server = TestServers.start("listen = [ { address = \"127.0.0.1:0\", tls { certificates = [ { cert = \""
                + cert.cert() + "\", key = \"" + cert.key() + "\" } ] } },"
                + " { address = \"127.0.0.1:0\", http2 = on }, \"127.0.0.1:0\" ]\n"
                + "http2 { max-concurrent-streams = 7, max-resets = 20, reset-window = 10s }\n"
                + "upstreams { app { servers = [\"127.0.0.1:" + app.getLocalPort() + "\"] } }\n"
                + "rate-limits { once { rate = 1r/m, burst = 0 }, once-h2c { rate = 1r/m, burst = 0 } }\n"
                + "locations = [ { path = \"/files/\", alias = \"" + dir.resolve("www") + "/\" },"
                + " { exact = \"/ret\", return = { status = 200, body = \"ret $scheme $host\" } },"
                + " { exact = \"/once\", return = { status = 200, body = \"once\" }, rate-limit = once },"
                + " { exact = \"/metrics\", metrics = prometheus },"
                + " { exact = \"/once-h2c\", return = { status = 200, body = \"once\" }, rate-limit = once-h2c },"
                + " { path = \"/\", proxy = app } ]\n"
                + "hosts = [ { names = [\"b.test\"], locations = [ { path = \"/\", return = { status = 200,"
                + " body = \"b\" } } ] } ]\n");
        tlsPort = server.localAddresses().get(0).getPort();
        h2cPort = server.localAddresses().get(1).getPort();
        plainPort = server.localAddresses().get(2).getPort();
    }

    @AfterAll
    static void stop() throws Exception {
        server.stop();
        app.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** An upstream that answers each request with its head and body, a thread per connection. */
    private static void echoHeads() {
        while (!app.isClosed()) {
            try {
                Socket s = app.accept();
                Thread t = new Thread(() -> echo(s), "h2-test-app-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed at the end of the class
            }
        }
    }

    private static void echo(Socket socket) {
        try (Socket s = socket) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            String head = TlsListenerTest.Exchange.head(in);
            int length = 0;
            for (String line : head.split("\r\n")) {
                if (line.toLowerCase().startsWith("content-length:")) {
                    length = Integer.parseInt(line.substring(15).trim());
                }
            }
            byte[] body = in.readNBytes(length);
            byte[] out = (head + new String(body, StandardCharsets.ISO_8859_1)).getBytes(StandardCharsets.ISO_8859_1);
            OutputStream o = s.getOutputStream();
            o.write(("HTTP/1.1 200 OK\r\nContent-Length: " + out.length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            o.write(out);
        } catch (IOException e) {
            // a connection Portico opened and then closed unused
        }
    }

    /** curl's answer: "VERSION STATUS" on the first line, then the body (to a file when {@code out} is given). */
    static String curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-k", "--max-time", "10", "-w",
                "\n%{http_version} %{http_code}"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(p.waitFor(15, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    static String tls(String host, String path, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of("--http2", "--resolve", host + ":" + tlsPort + ":127.0.0.1"));
        args.addAll(List.of(more));
        args.add("https://" + host + ":" + tlsPort + path);
        return curl(args.toArray(new String[0]));
    }

    @Test
    void tlsSpeaksHttp2ToStaticProxyReturnAndLimitedLocations() throws Exception {
        assertThat(tls("a.test", "/files/hello.txt")).isEqualTo("hello over h2\n2 200");
        assertThat(tls("a.test", "/ret")).isEqualTo("ret https a.test\n2 200");
        assertThat(tls("a.test", "/app/get")).startsWith("GET /app/get HTTP/1.1\r\n").endsWith("2 200");
        String proxied = tls("a.test", "/app/x?q=1", "-H", "X-Test: yes", "--data-binary", "posted body");
        assertThat(proxied).startsWith("POST /app/x?q=1 HTTP/1.1\r\n").endsWith("posted body\n2 200");
        assertThat(proxied.toLowerCase()).contains("x-test: yes", "x-forwarded-proto: https",
                "host: a.test:" + tlsPort).doesNotContain("x-http2-");
        assertThat(tls("a.test", "/once")).endsWith("2 200");
        assertThat(tls("a.test", "/once")).endsWith("2 429");
        assertThat(tls("b.test", "/anything")).isEqualTo("b\n2 200");
    }

    @Test
    void aLargeFileGoesWholeOverAStream() throws Exception {
        Path out = dir.resolve("download.bin");
        assertThat(tls("a.test", "/files/big.bin", "-o", out.toString())).isEqualTo("\n2 200");
        assertThat(Files.readAllBytes(out)).isEqualTo(big);
    }

    @Test
    void aClientWithoutH2GetsHttp11OnTheTlsListener() throws Exception {
        assertThat(curl("--http1.1", "https://127.0.0.1:" + tlsPort + "/ret"))
                .isEqualTo("ret https 127.0.0.1\n1.1 200");
    }

    @Test
    void hostOfAnotherHostThanSniIsMisdirected() throws Exception {
        // SNI a.test, :authority b.test on the same connection: 421
        assertThat(tls("a.test", "/x", "-H", "Host: b.test")).endsWith("2 421");
    }

    @Test
    void h2cWithPriorKnowledgeAndHttp11ShareAPlainListenerThatSaysOn() throws Exception {
        assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + h2cPort + "/ret"))
                .isEqualTo("ret http 127.0.0.1\n2 200");
        assertThat(curl("--http1.1", "http://127.0.0.1:" + h2cPort + "/ret")).isEqualTo("ret http 127.0.0.1\n1.1 200");
        Path out = dir.resolve("h2c.bin");
        assertThat(curl("--http2-prior-knowledge", "-o", out.toString(), "http://127.0.0.1:" + h2cPort
                + "/files/big.bin")).isEqualTo("\n2 200");
        assertThat(Files.readAllBytes(out)).isEqualTo(big);
        assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + h2cPort + "/app/h2c")).startsWith(
                "GET /app/h2c HTTP/1.1\r\n").contains("X-Forwarded-Proto: http\r\n").endsWith("2 200");
        assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + h2cPort + "/once-h2c")).endsWith("2 200");
        assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + h2cPort + "/once-h2c")).endsWith("2 429");
    }

    @Test
    void aPlainListenerByDefaultSpeaksHttp11Only() throws Exception {
        try (RawHttp c = new RawHttp(plainPort)) {
            assertThat(c.send(PREFACE).read().head()).startsWith("HTTP/1.1 400 ");
        }
    }

    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** A raw HTTP/2 connection over h2c: frames written and read by hand. */
    static final class RawH2 implements AutoCloseable {
        final Socket socket;
        final DataInputStream in;
        final OutputStream out;

        RawH2(int port) throws IOException {
            this(port, new byte[0]); // SETTINGS, empty
        }

        /** @param settings the payload of the client's SETTINGS frame (6 bytes a setting) */
        RawH2(int port, byte[] settings) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(5000);
            socket.setTcpNoDelay(true); // a frame at a time, each its own write: no Nagle wait behind an ACK
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
            out.write(PREFACE);
            frame(0x4, 0, 0, settings);
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            out.write(frameBytes(type, flags, stream, payload));
        }

        static byte[] frameBytes(int type, int flags, int stream, byte[] payload) {
            ByteArrayOutputStream f = new ByteArrayOutputStream();
            f.write(payload.length >> 16);
            f.write(payload.length >> 8);
            f.write(payload.length);
            f.write(type);
            f.write(flags);
            f.write(stream >> 24);
            f.write(stream >> 16);
            f.write(stream >> 8);
            f.write(stream);
            f.writeBytes(payload);
            return f.toByteArray();
        }

        /** A GET / with indexed static-table fields and a literal :authority (HPACK, no Huffman). */
        static byte[] getHeaders() {
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            h.write(0x82); // :method GET
            h.write(0x86); // :scheme http
            h.write(0x84); // :path /
            byte[] authority = "x".getBytes(StandardCharsets.US_ASCII);
            h.write(0x01); // literal without indexing, name :authority (static index 1)
            h.write(authority.length);
            h.writeBytes(authority);
            return h.toByteArray();
        }

        record Frame(int type, int flags, int stream, byte[] payload) {}

        Frame read() throws IOException {
            int length = in.readUnsignedByte() << 16 | in.readUnsignedByte() << 8 | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            int flags = in.readUnsignedByte();
            int stream = in.readInt() & 0x7fffffff;
            byte[] payload = new byte[length];
            in.readFully(payload);
            return new Frame(type, flags, stream, payload);
        }

        /** Frames until a GOAWAY (its error code) or the end of the connection (-1). */
        int goAwayCode() throws IOException {
            try {
                while (true) {
                    Frame f = read();
                    if (f.type() == 0x7) {
                        return (f.payload()[4] & 0xff) << 24 | (f.payload()[5] & 0xff) << 16
                                | (f.payload()[6] & 0xff) << 8 | (f.payload()[7] & 0xff);
                    }
                }
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void theServerAnnouncesItsSettings() throws Exception {
        try (RawH2 c = new RawH2(h2cPort)) {
            RawH2.Frame settings = c.read();
            assertThat(settings.type()).isEqualTo(0x4);
            Map<Integer, Long> values = new HashMap<>();
            for (int i = 0; i + 6 <= settings.payload().length; i += 6) {
                byte[] p = settings.payload();
                values.put((p[i] & 0xff) << 8 | (p[i + 1] & 0xff), (long) (p[i + 2] & 0xff) << 24
                        | (p[i + 3] & 0xff) << 16 | (p[i + 4] & 0xff) << 8 | (p[i + 5] & 0xff));
            }
            assertThat(values).containsEntry(0x3, 7L) // MAX_CONCURRENT_STREAMS
                    .containsEntry(0x4, 65536L) // INITIAL_WINDOW_SIZE
                    .containsEntry(0x6, 16384L); // MAX_HEADER_LIST_SIZE
        }
    }

    @Test
    void aStreamPastMaxConcurrentStreamsIsRefused() throws Exception {
        try (RawH2 c = new RawH2(h2cPort)) {
            byte[] headers = RawH2.getHeaders();
            for (int i = 0; i < 8; i++) { // max-concurrent-streams = 7: each stays open, its body never ends
                c.frame(0x1, 0x4, 1 + 2 * i, headers); // HEADERS, END_HEADERS, no END_STREAM
            }
            int refused = -1;
            for (int n = 0; n < 50 && refused < 0; n++) {
                RawH2.Frame f = c.read();
                if (f.type() == 0x3 && f.stream() == 15) { // RST_STREAM on the eighth stream
                    refused = (f.payload()[0] & 0xff) << 24 | (f.payload()[1] & 0xff) << 16
                            | (f.payload()[2] & 0xff) << 8 | (f.payload()[3] & 0xff);
                }
            }
            assertThat(refused).as("RST_STREAM REFUSED_STREAM").isEqualTo(0x7);
        }
    }

    @Test
    void aHeaderListOverItsLimitGets431() throws Exception {
        try (RawH2 c = new RawH2(h2cPort)) {
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            h.writeBytes(RawH2.getHeaders());
            byte[] name = "x-big".getBytes(StandardCharsets.US_ASCII);
            byte[] value = "v".repeat(20_000).getBytes(StandardCharsets.US_ASCII); // over max-header-list-size 16k
            h.write(0x00); // literal without indexing, new name
            h.write(name.length);
            h.writeBytes(name);
            // the value's length, 20,000, as an HPACK integer with a 7-bit prefix: 127, then 19,873 in 7-bit groups
            h.write(0x7f);
            int rest = value.length - 127;
            while (rest >= 128) {
                h.write((rest & 0x7f) | 0x80);
                rest >>= 7;
            }
            h.write(rest);
            h.writeBytes(value);
            byte[] block = h.toByteArray();
            // one HEADERS frame without END_HEADERS, then CONTINUATION frames of at most 16 KiB (max-frame-size)
            int first = Math.min(block.length, 16_384);
            c.frame(0x1, 0x1, 1, java.util.Arrays.copyOfRange(block, 0, first));
            for (int off = first; off < block.length; off += 16_384) {
                int end = Math.min(block.length, off + 16_384);
                c.frame(0x9, end == block.length ? 0x4 : 0, 1, java.util.Arrays.copyOfRange(block, off, end));
            }
            String status = null;
            for (int n = 0; n < 50 && status == null; n++) {
                RawH2.Frame f = c.read();
                if (f.type() == 0x1 && f.stream() == 1) {
                    io.netty.handler.codec.http2.Http2Headers decoded =
                            new io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder(false).decodeHeaders(1,
                                    io.netty.buffer.Unpooled.wrappedBuffer(f.payload()));
                    status = String.valueOf(decoded.status());
                }
            }
            assertThat(status).as("the response to a header list over max-header-list-size").isEqualTo("431");
        }
    }

    @Test
    void aRapidResetFloodGetsGoAwayEnhanceYourCalm() throws Exception {
        try (RawH2 c = new RawH2(h2cPort)) {
            byte[] headers = RawH2.getHeaders();
            for (int i = 0; i < 40; i++) {
                int stream = 1 + 2 * i;
                c.frame(0x1, 0x4 | 0x1, stream, headers); // HEADERS, END_HEADERS | END_STREAM
                c.frame(0x3, 0, stream, new byte[] {0, 0, 0, 0x8}); // RST_STREAM CANCEL
            }
            assertThat(c.goAwayCode()).as("GOAWAY ENHANCE_YOUR_CALM").isEqualTo(0xb);
        }
    }

    @Test
    void streamsResetWhileProxiedLeaveTheServerServing() throws Exception {
        try (RawH2 c = new RawH2(h2cPort)) {
            byte[] headers = RawH2.getHeaders();
            for (int i = 0; i < 5; i++) {
                int stream = 1 + 2 * i;
                c.frame(0x1, 0x4 | 0x1, stream, headers);
                c.frame(0x3, 0, stream, new byte[] {0, 0, 0, 0x8});
            }
            Thread.sleep(500);
        }
        assertThat(curl("--http1.1", "http://127.0.0.1:" + plainPort + "/app/after")).startsWith("GET /app/after")
                .endsWith("1.1 200");
        assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + h2cPort + "/app/after")).endsWith("2 200");
    }

    @Test
    void aContinuationFloodGetsGoAwayEnhanceYourCalm() throws Exception {
        try (RawH2 c = new RawH2(h2cPort)) {
            // HEADERS without END_HEADERS, then empty CONTINUATION frames past max-small-continuations (16), in one
            // write: the server reads them all before it closes, so its GOAWAY is not lost to a reset of unread bytes
            ByteArrayOutputStream flood = new ByteArrayOutputStream();
            flood.writeBytes(RawH2.frameBytes(0x1, 0, 1, RawH2.getHeaders()));
            for (int i = 0; i < 20; i++) {
                flood.writeBytes(RawH2.frameBytes(0x9, 0, 1, new byte[0]));
            }
            c.out.write(flood.toByteArray());
            assertThat(c.goAwayCode()).as("GOAWAY ENHANCE_YOUR_CALM").isEqualTo(0xb);
        }
    }

    static final String H2_OPEN = "portico_connections_protocol_open{protocol=\"h2\"}";
    static final String H2_TOTAL = "portico_connections_protocol_total{protocol=\"h2\"}";
    static final String STREAMS_OPEN = "portico_http2_streams_open";
    static final String STREAMS_TOTAL = "portico_http2_streams_total";
    static final String WRITING = "portico_connections{state=\"writing\"}";

    @Test
    void metricsCountConnectionsByProtocolAndTheOpenStreams() throws Exception {
        io.portico.metrics.Scrape before = io.portico.metrics.Scrape.of(plainPort, "/metrics");
        assertThat(before.get("portico_connections_protocol_total{protocol=\"http/1.1\"}")).isPositive();
        try (RawH2 c = new RawH2(h2cPort)) {
            c.frame(0x1, 0x4, 1, RawH2.getHeaders()); // a stream left open: its end never comes
            c.frame(0x1, 0x4, 3, RawH2.getHeaders());
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).untilAsserted(() -> {
                io.portico.metrics.Scrape now = io.portico.metrics.Scrape.of(plainPort, "/metrics");
                assertThat(now.value(H2_OPEN)).isEqualTo(before.valueOrZero(H2_OPEN) + 1);
                assertThat(now.value(H2_TOTAL)).isEqualTo(before.valueOrZero(H2_TOTAL) + 1);
                assertThat(now.value(STREAMS_OPEN)).isEqualTo(before.valueOrZero(STREAMS_OPEN) + 2);
                assertThat(now.value(STREAMS_TOTAL)).isEqualTo(before.valueOrZero(STREAMS_TOTAL) + 2);
                // nginx's stub_status states: an h2 connection with a stream open is writing (the scrape is too)
                assertThat(now.value(WRITING)).isEqualTo(before.valueOrZero(WRITING) + 1);
            });
        }
        // A TLS connection counts once ALPN chose h2: curl's, closed by the time it returns
        assertThat(tls("a.test", "/ret")).endsWith("2 200");
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).untilAsserted(() -> {
            io.portico.metrics.Scrape after = io.portico.metrics.Scrape.of(plainPort, "/metrics");
            assertThat(after.value(H2_OPEN)).isEqualTo(before.valueOrZero(H2_OPEN));
            assertThat(after.value(H2_TOTAL)).isEqualTo(before.valueOrZero(H2_TOTAL) + 2);
            assertThat(after.value(STREAMS_OPEN)).isEqualTo(before.valueOrZero(STREAMS_OPEN));
            assertThat(after.value(STREAMS_TOTAL)).isEqualTo(before.valueOrZero(STREAMS_TOTAL) + 3);
        });
    }

    @Test
    void theAccessLogSaysHttp20ForAStreamOverTlsAndH2c() throws Exception {
        Path log = dir.resolve("h2-access.log");
        try (PorticoServer logged = TestServers.start("access-log = \"" + log + "\"\n"
                + "listen = [ { address = \"127.0.0.1:0\", tls { certificates = [ { cert = \"" + cert.cert()
                + "\", key = \"" + cert.key() + "\" } ] } }, { address = \"127.0.0.1:0\", http2 = on } ]\n"
                + "locations = [ { path = \"/\", return = 204 } ]\n")) {
            int tlsLogged = logged.localAddresses().get(0).getPort();
            int h2cLogged = logged.localAddresses().get(1).getPort();
            assertThat(curl("--http2", "--resolve", "a.test:" + tlsLogged + ":127.0.0.1",
                    "https://a.test:" + tlsLogged + "/over-tls")).isEqualTo("\n2 204");
            assertThat(curl("--http2-prior-knowledge", "http://127.0.0.1:" + h2cLogged + "/over-h2c"))
                    .isEqualTo("\n2 204");
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"GET /over-tls HTTP/2.0\" 204",
                "ssl_protocol=TLSv1.3"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("\"GET /over-h2c HTTP/2.0\" 204"));
    }

    @Test
    void aClientsCloseNotifyEndsItsH2ConnectionAtOnceOpenStreamsIncluded() throws Exception {
        // Netty's client, for its SslHandler.closeOutbound(): TLS close_notify with the TCP connection left open, as
        // h2load does when it stops (a JDK SSLSocket's shutdownOutput sends a FIN as well)
        io.netty.channel.EventLoopGroup group = new io.netty.channel.MultiThreadIoEventLoopGroup(1,
                io.netty.channel.nio.NioIoHandler.newFactory());
        try {
            io.netty.handler.ssl.SslContext ctx = io.netty.handler.ssl.SslContextBuilder.forClient()
                    .trustManager(io.netty.handler.ssl.util.InsecureTrustManagerFactory.INSTANCE)
                    .protocols("TLSv1.3").applicationProtocolConfig(new io.netty.handler.ssl.ApplicationProtocolConfig(
                            io.netty.handler.ssl.ApplicationProtocolConfig.Protocol.ALPN,
                            io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            "h2")).build();
            io.netty.channel.Channel ch = new io.netty.bootstrap.Bootstrap().group(group)
                    .channel(io.netty.channel.socket.nio.NioSocketChannel.class)
                    .handler(new io.netty.channel.ChannelInitializer<io.netty.channel.Channel>() {
                        @Override
                        protected void initChannel(io.netty.channel.Channel c) {
                            c.pipeline().addLast(ctx.newHandler(c.alloc(), "a.test", tlsPort));
                            c.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(io.netty.channel.ChannelHandlerContext x, Object msg) {
                                    io.netty.util.ReferenceCountUtil.release(msg); // the server's frames
                                }
                            });
                        }
                    }).connect("127.0.0.1", tlsPort).sync().channel();
            io.netty.handler.ssl.SslHandler ssl = ch.pipeline().get(io.netty.handler.ssl.SslHandler.class);
            ssl.handshakeFuture().sync();
            assertThat(ssl.applicationProtocol()).isEqualTo("h2");
            ByteArrayOutputStream hello = new ByteArrayOutputStream();
            hello.writeBytes(PREFACE);
            hello.writeBytes(RawH2.frameBytes(0x4, 0, 0, new byte[0]));
            hello.writeBytes(RawH2.frameBytes(0x1, 0x4, 1, RawH2.getHeaders())); // a stream whose end never comes
            ch.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(hello.toByteArray())).sync();
            Thread.sleep(200);
            ssl.closeOutbound().sync();
            assertThat(ch.closeFuture().await(3, TimeUnit.SECONDS)).as("the server closed at once, not at the idle"
                    + " timeout").isTrue();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
