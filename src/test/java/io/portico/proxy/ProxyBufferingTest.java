package io.portico.proxy;

import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import io.portico.testing.TempFiles;
import static io.portico.proxy.TestConfigs.server;
import static io.portico.proxy.TestConfigs.target;
import static io.portico.proxy.TestConfigs.upstream;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.server.ServerProbe;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Request and response buffering, and end-to-end backpressure when streaming. */
class ProxyBufferingTest {
    private static final int MIB = 1024 * 1024;

    private static TestUpstream.Script large(int bytes) {
        return (req, out, s) -> {
            TestUpstream.sendBuffer(s, 64 * 1024);
            out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + bytes + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[64 * 1024];
            for (int sent = 0; sent < bytes; sent += chunk.length) {
                for (int i = 0; i < chunk.length; i++) {
                    chunk[i] = pattern(sent + i);
                }
                out.write(chunk, 0, Math.min(chunk.length, bytes - sent));
            }
            out.flush();
            return true;
        };
    }

    @Test
    void bufferedRequestReachesTheUpstreamOnlyWhenComplete() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
            // The first chunk has passed the request's record, and so reached the exchange in the same pass.
            await().until(() -> ServerProbe.maxRequestBodyBytesRead(proxy.server) >= 5);
            assertThat(app.connections.get()).isZero();
            client.send("6\r\n world\r\n0\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            TestUpstream.Request seen = app.requests.peek();
            assertThat(new String(seen.body(), StandardCharsets.US_ASCII)).isEqualTo("hello world");
            assertThat(seen.header("content-length")).isEqualTo("11");
            assertThat(seen.header("transfer-encoding")).isNull();
        }
    }

    @Test
    void largeBufferedBodySpillsToATempFileAndIsReplayedOnRetry() throws Exception {
        byte[] body = new byte[3 * MIB + 17];
        new java.util.Random(7).nextBytes(body);
        long tempFilesBefore = TempFiles.open("portico-body-");
        try (TestUpstream dropper = new TestUpstream((req, out, s) -> false);
                TestUpstream good = new TestUpstream(TestUpstream.ok("stored"));
                ProxiedServer proxy = new ProxiedServer(
                        TestConfigs.withRetries(upstream(List.of(server(dropper.port()), server(good.port()))), 1),
                        target(true, true), 8 * MIB, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            // PUT is idempotent and the body is buffered (in a file: over 16 KiB), so the dropped attempt is replayed.
            client.send("PUT /file HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n");
            client.send(body);
            Response r = client.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(dropper.requests).hasSize(1);
            assertThat(dropper.requests.peek().body()).isEqualTo(body);
            assertThat(good.requests.peek().body()).isEqualTo(body);
        }
        await().until(() -> TempFiles.open("portico-body-") <= tempFilesBefore);
    }

    @Test
    void streamedRequestReachesTheUpstreamBeforeItIsComplete() throws Exception {
        try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(false, false),
                        1 << 20, 1, true);
                RawHttp client = new RawHttp(proxy.port())) {
            client.send("POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
            await().until(() -> app.headsSeen.get() == 1);
            assertThat(app.requests).isEmpty();
            client.send("6\r\n world\r\n0\r\n\r\n");
            assertThat(client.read().status()).isEqualTo(200);
            assertThat(new String(app.requests.peek().body(), StandardCharsets.US_ASCII)).isEqualTo("hello world");
        }
    }

    @Test
    void chunkedBodyOverMaxBodySizeIs413WithoutTouchingTheUpstream() throws Exception {
        for (boolean buffering : new boolean[] {true, false}) {
            try (TestUpstream app = new TestUpstream(TestUpstream.ok("ok"));
                    ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))),
                            target(buffering, true), 100, 1, true);
                    RawHttp client = new RawHttp(proxy.port())) {
                String chunk = "a".repeat(60);
                client.send("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3c\r\n" + chunk
                        + "\r\n3c\r\n" + chunk + "\r\n0\r\n\r\n");
                assertThat(client.read().status()).as("buffering=" + buffering).isEqualTo(413);
                assertThat(app.requests).isEmpty();
            }
        }
    }

    @Test
    void bufferedResponseFreesTheUpstreamConnectionWhileTheClientIsSlow() throws Exception {
        try (TestUpstream app = new TestUpstream(large(2 * MIB));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, 1, true);
                RawHttp slow = RawHttp.withReceiveBuffer(proxy.port(), 16 * 1024);
                RawHttp other = new RawHttp(proxy.port())) {
            slow.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            // The whole response came from the upstream although the slow client has read nothing yet.
            await().until(() -> proxy.upstreamResponsesEnded(0) == 1);
            Response r = other.get("/big");
            assertThat(r.body()).hasSize(2 * MIB);
            // So the second request reused the first one's connection.
            assertThat(app.connections.get()).isEqualTo(1);
            assertThat(slow.read().body()).hasSize(2 * MIB);
        }
    }

    @Test
    void streamedResponseKeepsTheUpstreamConnectionUntilTheClientHasIt() throws Exception {
        try (TestUpstream app = new TestUpstream(large(8 * MIB));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(false, false),
                        1 << 20, 1, true);
                RawHttp slow = RawHttp.withReceiveBuffer(proxy.port(), 16 * 1024);
                RawHttp other = new RawHttp(proxy.port())) {
            slow.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            await().until(() -> app.connections.get() == 1);
            assertThat(other.get("/big").body()).hasSize(8 * MIB);
            assertThat(app.connections.get()).isEqualTo(2);
            assertThat(slow.read().body()).hasSize(8 * MIB);
        }
    }

    @Test
    void streamingA64MiBResponseToAStalledClientKeepsMemoryBounded() throws Exception {
        int size = 64 * MIB;
        try (TestUpstream app = new TestUpstream(large(size));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(false, false),
                        1 << 20, 1, true);
                RawHttp client = RawHttp.withReceiveBuffer(proxy.port(), 64 * 1024)) {
            client.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            AtomicLong last = new AtomicLong(-1);
            // Stalled: the upstream stops making progress because nothing is read on its connection.
            await().pollInterval(Duration.ofMillis(200)).atMost(Duration.ofSeconds(20))
                    .until(() -> {
                        long now = app.bytesWritten.get();
                        return now > 0 && now == last.getAndSet(now);
                    });
            long pending = ServerProbe.maxPendingOutbound(proxy.server);
            assertThat(pending).as("bytes queued in the proxy for the client").isLessThan(MIB);
            assertThat(app.bytesWritten.get()).as("bytes the upstream got rid of").isLessThan(16L * MIB);
            Response head = client.readHead();
            assertThat(head.status()).isEqualTo(200);
            assertThat(drain(client.input(), size)).isEqualTo(size);
        }
    }

    @Test
    void bufferedResponseOverProxyBuffersSpillsToAFileAndFreesTheUpstream() throws Exception {
        // Three times the memory budget: enough to show the spill, small enough that a slow shared disk (the
        // spill now waits for its writes) finishes well inside the wait below.
        int size = 12 * MIB;
        long tempFilesBefore = TempFiles.open("portico-response-");
        try (TestUpstream app = new TestUpstream(large(size));
                ProxiedServer proxy = new ProxiedServer(upstream(List.of(server(app.port()))), target(true, true),
                        1 << 20, 1, true);
                RawHttp stalled = RawHttp.withReceiveBuffer(proxy.port(), 64 * 1024);
                RawHttp other = new RawHttp(proxy.port())) {
            stalled.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            // The upstream sends everything although the client reads nothing: the excess is parked on disk.
            await().atMost(Duration.ofSeconds(60)).until(() -> proxy.upstreamResponsesEnded(0) == 1);
            // In memory: proxyBuffers (4 MiB in these tests), plus at most one read batch.
            assertThat(ServerProbe.maxPendingOutbound(proxy.server)).isBetween(4L * MIB, 5L * MIB);
            Response r = other.get("/again");
            assertThat(r.body()).hasSize(size);
            assertThat(app.connections.get()).isEqualTo(1);
            assertThat(stalled.readHead().status()).isEqualTo(200);
            assertThat(drain(stalled.input(), size)).isEqualTo(size);
        }
        await().until(() -> TempFiles.open("portico-response-") <= tempFilesBefore);
    }

    private static byte pattern(long offset) {
        return (byte) (offset % 251);
    }

    /** Reads {@code expected} bytes, checking each is where the upstream put it. */
    private static long drain(InputStream in, long expected) throws Exception {
        byte[] buf = new byte[256 * 1024];
        long total = 0;
        for (int n; total < expected && (n = in.read(buf)) > 0; ) {
            for (int i = 0; i < n; i++) {
                if (buf[i] != pattern(total + i)) {
                    throw new AssertionError("byte " + (total + i) + " is " + buf[i]);
                }
            }
            total += n;
        }
        return total;
    }
}
