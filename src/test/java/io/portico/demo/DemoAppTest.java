package io.portico.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.portico.config.DemoAppConfig;
import io.portico.config.ListenAddress;
import io.portico.testing.RawHttp;
import io.portico.testing.Response;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo app on real loopback sockets, bound to port 0. */
class DemoAppTest {

    @TempDir
    Path dir;

    private Path root;
    private DemoApp app;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeEach
    void setUp() throws IOException {
        root = Files.createDirectories(dir.resolve("site"));
        Files.writeString(root.resolve("index.html"), "<p>home</p>");
        Files.writeString(dir.resolve("secret.txt"), "secret");
    }

    @AfterEach
    void tearDown() {
        if (app != null) {
            app.close();
        }
    }

    private DemoApp start(int workers, boolean keepalive) throws DemoAppStartException {
        app = DemoApp.start(new DemoAppConfig(true, new ListenAddress("127.0.0.1", 0), workers, keepalive, root));
        return app;
    }

    private int port() {
        return ((InetSocketAddress) app.localAddress()).getPort();
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private RawHttp connect() throws IOException {
        return new RawHttp(port());
    }

    private static byte[] request(String method, String target, String... headers) {
        StringBuilder out = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: test\r\n");
        for (String header : headers) {
            out.append(header).append("\r\n");
        }
        return out.append("\r\n").toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    @Test
    void servesEachEndpointOverTheNetwork() throws Exception {
        start(2, false);
        assertThat(get("/").body()).isEqualTo("Hello, World!");
        assertThat(get("/hello/%3Cx%3E").body()).contains("Hello &lt;x&gt;!");
        assertThat(get("/block?ms=1").body()).isEqualTo("i slept 1 ms\n");
        assertThat(get("/files/index.html").body()).isEqualTo("<p>home</p>");
        assertThat(get("/health").body()).isEqualTo("ok");
        assertThat(get("/big?kb=300").body()).hasSize(300 * 1024);
        assertThat(get("/missing").statusCode()).isEqualTo(404);
        assertThat(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/"))
                        .DELETE().build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(405);
    }

    @Test
    void exactlyNRequestsAreInServiceAndTheRestWait() throws Exception {
        start(2, false);
        List<CompletableFuture<HttpResponse<String>>> responses = IntStream.range(0, 4)
                .mapToObj(i -> client.sendAsync(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/block?ms=800")).build(),
                        HttpResponse.BodyHandlers.ofString()))
                .toList();
        SyncWorkers workers = app.workers();
        // While the first two sleep, the other two are accepted and parsed but wait for a worker.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> workers.inService() == 2 && workers.waiting() == 2);
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            assertThat(response.get().body()).isEqualTo("i slept 800 ms\n");
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> workers.completed() == 4);
        assertThat(workers.maxInService()).isEqualTo(2);
    }

    @Test
    void closesAfterEachResponseByDefault() throws Exception {
        start(2, false);
        try (RawHttp socket = connect()) {
            socket.send(request("GET", "/"));
            Response response = socket.read();
            assertThat(response.text()).isEqualTo("Hello, World!");
            assertThat(response.header("connection")).isEqualTo("close");
            assertThat(socket.input().read()).isEqualTo(-1);
        }
    }

    @Test
    void keepAliveReusesTheConnectionAndAnswersPipelinedRequestsInOrder() throws Exception {
        start(2, true);
        try (RawHttp socket = connect()) {
            socket.send(request("GET", "/"));
            assertThat(socket.read().header("connection")).isNull();
            socket.send(request("HEAD", "/"));
            Response head = socket.read(true);
            assertThat(head.header("content-length")).isEqualTo("13");
            // Two requests in one write: the slow one must still be answered first.
            byte[] first = request("GET", "/block?ms=50");
            byte[] second = request("GET", "/health");
            byte[] both = new byte[first.length + second.length];
            System.arraycopy(first, 0, both, 0, first.length);
            System.arraycopy(second, 0, both, first.length, second.length);
            socket.send(both);
            assertThat(socket.read().text()).isEqualTo("i slept 50 ms\n");
            assertThat(socket.read().text()).isEqualTo("ok");
            socket.send(request("GET", "/", "Connection: close"));
            assertThat(socket.read().header("connection")).isEqualTo("close");
            assertThat(socket.input().read()).isEqualTo(-1);
        }
    }

    @Test
    void aSlowReaderHoldsItsWorkerLikeASyncWorkerBlockedInSend() throws Exception {
        start(1, false);
        SyncWorkers workers = app.workers();
        try (RawHttp slow = connect()) {
            slow.send(request("GET", "/big?kb=16384")); // far more than socket buffers
            await().atMost(Duration.ofSeconds(10)).until(() -> workers.inService() == 1);
            CompletableFuture<HttpResponse<String>> next = client.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            await().atMost(Duration.ofSeconds(10)).until(() -> workers.waiting() == 1);
            assertThat(next).isNotDone();
            assertThat(workers.completed()).isZero();
            Response big = slow.read();
            assertThat(big.body()).hasSize(16384 * 1024);
            assertThat(next.get().body()).isEqualTo("ok");
        }
    }

    @Test
    void malformedAndOversizedRequestsAreRefused() throws Exception {
        start(1, true);
        try (RawHttp socket = connect()) {
            socket.send("NONSENSE\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            Response response = socket.read();
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.header("connection")).isEqualTo("close");
        }
        try (RawHttp socket = connect()) {
            socket.send(request("POST", "/echo",
                    "Content-Length: " + (DemoApp.MAX_REQUEST_BYTES + 1), "Connection: close"));
            assertThat(socket.read().status()).isEqualTo(413);
        }
    }

    @Test
    void echoesAMebibyteIntact() throws Exception {
        start(2, false);
        byte[] body = new byte[1024 * 1024];
        new Random(42).nextBytes(body);
        HttpResponse<byte[]> response = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port() + "/echo"))
                        .header("Content-Type", "application/x-test")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).contains("application/x-test");
        assertThat(response.body()).isEqualTo(body);
    }

    @Test
    void refusesPathTraversal() throws Exception {
        start(2, false);
        for (String target : List.of("/files/../secret.txt", "/files/%2e%2e/secret.txt", "/files/..%2fsecret.txt",
                "/files/../../pom.xml")) {
            try (RawHttp socket = connect()) {
                socket.send(request("GET", target));
                Response response = socket.read();
                assertThat(response.status()).as(target).isEqualTo(404);
                assertThat(response.text()).as(target).doesNotContain("secret").doesNotContain("<project");
            }
        }
    }

    @Test
    void listensOnAUnixSocketWithEpoll() throws Exception {
        assumeTrue(Epoll.isAvailable(), "unix sockets need the epoll transport");
        Path socketPath = dir.resolve("app.sock");
        app = DemoApp.start(new DemoAppConfig(true, null, 1, false, root, Optional.of(socketPath)));
        try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            channel.connect(UnixDomainSocketAddress.of(socketPath));
            assertThat(RawHttp.over(channel).send(request("GET", "/health")).read().text()).isEqualTo("ok");
        }
        app.close();
        assertThat(socketPath).doesNotExist();
    }

    @Test
    void servesOnNioTooAndRefusesUnixSocketsThereWithAClearMessage() throws Exception {
        DemoAppConfig tcp = new DemoAppConfig(true, new ListenAddress("127.0.0.1", 0), 1, false, root);
        app = DemoApp.start(tcp, DemoListener.of(tcp, false));
        assertThat(get("/").body()).isEqualTo("Hello, World!");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            DemoAppConfig inUse = new DemoAppConfig(
                    true, new ListenAddress("127.0.0.1", taken.getLocalPort()), 1, false, root);
            assertThatThrownBy(() -> DemoApp.start(inUse, DemoListener.of(inUse, false)))
                    .hasMessageEndingWith(": address already in use");
        }
        DemoAppConfig unix = new DemoAppConfig(true, null, 1, false, root, Optional.of(dir.resolve("app.sock")));
        assertThatThrownBy(() -> DemoListener.of(unix, false))
                .isInstanceOf(DemoAppStartException.class)
                .hasMessageContaining("unix sockets need the native epoll transport")
                .hasMessageContaining("listen on HOST:PORT instead");
    }

    @Test
    void aPortInUseIsAClearStartFailure() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            DemoAppConfig config = new DemoAppConfig(
                    true, new ListenAddress("127.0.0.1", taken.getLocalPort()), 2, false, root);
            assertThatThrownBy(() -> DemoApp.start(config))
                    .isInstanceOf(DemoAppStartException.class)
                    .hasMessage("cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": address already in use");
        }
    }

    @Test
    void closeIsIdempotentAndFreesTheWorkers() throws Exception {
        start(3, false);
        assertThat(get("/health").statusCode()).isEqualTo(200);
        app.close();
        app.close();
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(thread -> thread.getName().startsWith("demo-app-worker-") && thread.isAlive());
    }
}
