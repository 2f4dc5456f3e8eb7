package io.portico.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.channel.epoll.Epoll;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nothing lost, nothing added: large bodies both ways through buffered and streaming proxy locations, with
 * Content-Length and chunked framing, over TCP and a unix socket, compared by SHA-256 at the far end.
 */
class IntegrityTest {
    static final int MIB = 1024 * 1024;
    static ProxiedPortico tcp;
    static ProxiedPortico unix;
    static Path socketDir;

    @BeforeAll
    static void start() throws Exception {
        String limits = ProxiedPortico.LIMITS.replace("max-body-size = 1k", "max-body-size = 64m")
                .replace("client-body-timeout = 300ms", "client-body-timeout = 5s")
                .replace("send-timeout = 300ms", "send-timeout = 5s");
        String upstream = ", read-timeout = 5s, send-timeout = 5s";
        tcp = new ProxiedPortico(RecordingUpstream.tcp().behave(IntegrityTest::answer), limits, upstream);
        if (Epoll.isAvailable()) {
            socketDir = Files.createTempDirectory("portico-sock");
            unix = new ProxiedPortico(
                    RecordingUpstream.unix(socketDir.resolve("app.sock")).behave(IntegrityTest::answer),
                    limits, upstream);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        tcp.close();
        if (unix != null) {
            unix.close();
            Files.deleteIfExists(socketDir);
        }
    }

    /** GET /…/download/N[/chunked] answers N seeded random bytes; anything else, the body's length and SHA-256. */
    static void answer(RecordingUpstream.Conn c, RecordingUpstream.Request r) throws IOException {
        String[] target = r.requestLine().split(" ")[1].split("/");
        int at = java.util.Arrays.asList(target).indexOf("download");
        if (at < 0) {
            RecordingUpstream.keepAliveOk(c, r);
            return;
        }
        int n = Integer.parseInt(target[at + 1]);
        boolean chunked = target.length > at + 2;
        byte[] data = data(n);
        OutputStream out = new BufferedOutputStream(c.out, 64 * 1024);
        if (chunked) {
            out.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            for (int off = 0; off < n; off += 100_000) {
                int len = Math.min(100_000, n - off);
                out.write((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(data, off, len);
                out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        } else {
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + n + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(data);
        }
        out.flush();
    }

    static byte[] data(int n) {
        byte[] b = new byte[n];
        new SplittableRandom(n).nextBytes(b);
        return b;
    }

    static String sha256(byte[] b) {
        return HexFormat.of().formatHex(RecordingUpstream.sha256().digest(b));
    }

    static Stream<Arguments> cases() {
        return Stream.of("tcp", "unix").flatMap(transport -> Stream.of("/", "/stream/").flatMap(path -> Stream.of(
                Arguments.of(transport, path, "upload", false, 8 * MIB),
                Arguments.of(transport, path, "upload", true, 8 * MIB),
                Arguments.of(transport, path, "download", false, 8 * MIB),
                Arguments.of(transport, path, "download", true, 8 * MIB))))
                .collect(java.util.stream.Collectors.collectingAndThen(java.util.stream.Collectors.toList(), l -> {
                    l.add(Arguments.of("tcp", "/stream/", "upload", true, 32 * MIB));
                    l.add(Arguments.of("tcp", "/", "download", false, 32 * MIB));
                    return l.stream();
                }));
    }

    @ParameterizedTest(name = "{2} {4} bytes over {0} at {1}, chunked {3}")
    @MethodSource("cases")
    void arrivesByteForByte(String transport, String path, String direction, boolean chunked, int size)
            throws Exception {
        ProxiedPortico p = transport.equals("tcp") ? tcp : unix;
        assumeThat(p).as("unix socket upstreams need epoll").isNotNull();
        byte[] data = data(size);
        try (RawHttp c = new RawHttp(p.port)) {
            if (direction.equals("upload")) {
                upload(c, path, data, chunked);
                Response r = c.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.latin1()).isEqualTo("ok " + size + " " + sha256(data));
            } else {
                Response r = c.send("GET " + path + "download/" + size + (chunked ? "/chunked" : "")
                        + " HTTP/1.1\r\nHost: x\r\n\r\n").read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body().length).isEqualTo(size);
                assertThat(sha256(r.body())).isEqualTo(sha256(data));
            }
        }
    }

    private static void upload(RawHttp c, String path, byte[] data, boolean chunked) throws IOException {
        c.send("POST " + path + "upload HTTP/1.1\r\nHost: x\r\n"
                + (chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + data.length + "\r\n") + "\r\n");
        if (chunked) {
            for (int off = 0; off < data.length; off += 300_000) {
                int len = Math.min(300_000, data.length - off);
                c.send(Integer.toHexString(len) + "\r\n");
                c.send(java.util.Arrays.copyOfRange(data, off, off + len));
                c.send("\r\n");
            }
            c.send("0\r\n\r\n");
        } else {
            c.send(data);
        }
    }
}
