package io.portico.server;

import io.portico.testing.RawHttp;
import io.portico.testing.RefusedPort;
import io.portico.testing.Response;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.PorticoConfig;
import io.portico.config.TargetConfig;
import io.portico.proxy.Proxies;
import io.portico.route.HostRouter;
import io.portico.route.Router;
import io.portico.testing.TestServers;
import io.portico.transport.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The proxy behind the server core's real client pipeline (codec, framing, keep-alive, access log, routing,
 * exchange), wired the way the lead wires {@link Proxies} into {@code Targets}.
 */
class RealPipelineProxyTest {
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final AtomicInteger upstreamConnections = new AtomicInteger();
    /** When set, the app reads the second request of each connection and closes without answering. */
    private volatile boolean dropSecondRequest;

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** A line-based fake app: answers every request head with its request line, or 101 + echo for upgrades. */
    private int app() throws IOException {
        ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        open.add(server);
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    Socket s = server.accept();
                    upstreamConnections.incrementAndGet();
                    Thread c = new Thread(() -> serve(s));
                    c.setDaemon(true);
                    c.start();
                }
            } catch (IOException closed) {
                // done
            }
        });
        t.setDaemon(true);
        t.start();
        return server.getLocalPort();
    }

    private void serve(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            for (int request = 1; ; request++) {
                StringBuilder head = new StringBuilder();
                while (!head.toString().endsWith("\r\n\r\n")) {
                    int c = in.read();
                    if (c == -1) {
                        return;
                    }
                    head.append((char) c);
                }
                String h = head.toString();
                seen.add(h);
                if (dropSecondRequest && request == 2) {
                    return; // the keep-alive race: the request was read, the connection closes unanswered
                }
                int cl = h.toLowerCase().indexOf("content-length: ");
                if (cl >= 0) {
                    int n = Integer.parseInt(h.substring(cl + 16, h.indexOf("\r\n", cl)).trim());
                    seen.add(new String(in.readNBytes(n), StandardCharsets.UTF_8));
                }
                if (h.toLowerCase().contains("upgrade: websocket")) {
                    out.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    in.transferTo(out);
                    return;
                }
                String line = h.substring(0, h.indexOf("\r\n"));
                if (line.startsWith("GET /head-then-")) {
                    // a head that promises a body, then nothing: the app died (close) or hangs (stall)
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    if (line.startsWith("GET /head-then-stall")) {
                        in.transferTo(OutputStream.nullOutputStream()); // until the proxy gives up and closes
                    }
                    return;
                }
                byte[] body = line.getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            }
        } catch (IOException e) {
            // gone
        }
    }

    private int portico(int appPort) throws Exception {
        return portico(appPort, "");
    }

    /** @param upstreamSettings more keys of the {@code app} upstream, e.g. {@code read-timeout = 300ms} */
    private int portico(int appPort, String upstreamSettings) throws Exception {
        PorticoConfig config = TestServers.config("upstreams { app { servers = [\"127.0.0.1:" + appPort + "\"]\n"
                + upstreamSettings + "\n} }\n"
                + "trusted-proxies = []\n"
                + "locations = [ { path = \"/\", proxy = app } ]", Path.of("."));
        Transport transport = io.portico.testing.TestTransport.of(true);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        open.add(() -> group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly());
        Proxies proxies = Proxies.start(config, group);
        open.add(proxies);
        io.portico.metrics.PorticoMetrics metrics = new io.portico.metrics.PorticoMetrics();
        open.add(metrics);
        Router router = Router.build(config.locations(), location -> location.target() instanceof TargetConfig.Proxy p
                ? proxies.responder(location, p)
                : (client, request) -> {
                    client.sendError(HttpResponseStatus.NOT_FOUND);
                    return io.netty.handler.codec.http.HttpContent::release;
                });
        io.netty.channel.ChannelHandler init = Pipelines.initializer(config, HostRouter.of(router), null,
                l -> metrics.location("", ""), metrics);
        Channel server = new ServerBootstrap().group(group).channel(transport.serverChannel()).childHandler(init)
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        open.add(() -> server.close().syncUninterruptibly());
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** A response's head and body as one text, for assertions on both. */
    private static String readResponse(RawHttp c) throws IOException {
        Response r = c.read();
        return r.head() + r.text();
    }

    @Test
    void keepAliveRequestsExpectContinueAndWebSocketThroughTheRealPipeline() throws Exception {
        int port = portico(app());
        try (RawHttp c = new RawHttp(port)) {
            for (int i = 0; i < 3; i++) {
                c.send("GET /r" + i + " HTTP/1.1\r\nHost: site\r\nX-Forwarded-For: 6.6.6.6\r\n\r\n");
                String r = readResponse(c);
                assertThat(r).startsWith("HTTP/1.1 200").endsWith("GET /r" + i + " HTTP/1.1")
                        .containsIgnoringCase("server: portico");
            }
            assertThat(upstreamConnections.get()).isEqualTo(1);
            assertThat(seen.get(0)).contains("X-Forwarded-For: 127.0.0.1\r\n").doesNotContain("6.6.6.6");

            c.send("POST /up HTTP/1.1\r\nHost: site\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
            assertThat(readResponse(c)).startsWith("HTTP/1.1 100");
            c.send("hello");
            assertThat(readResponse(c)).startsWith("HTTP/1.1 200").endsWith("POST /up HTTP/1.1");
            assertThat(seen).contains("hello");

            c.send("GET /ws HTTP/1.1\r\nHost: site\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: x\r\n\r\n");
            String upgraded = readResponse(c);
            assertThat(upgraded).startsWith("HTTP/1.1 101").containsIgnoringCase("upgrade: websocket")
                    .containsIgnoringCase("connection: upgrade");
            c.send("frame-bytes");
            assertThat(new String(c.input().readNBytes(11), StandardCharsets.US_ASCII)).isEqualTo("frame-bytes");
        }
    }

    @Test
    void aWholeGetIsSentAgainCompleteWhenItsReusedConnectionDiesUnanswered() throws Exception {
        dropSecondRequest = true;
        int port = portico(app());
        try (RawHttp c = new RawHttp(port)) {
            for (String path : List.of("/a", "/b")) {
                c.send("GET " + path + " HTTP/1.1\r\nHost: site\r\n\r\n");
                assertThat(readResponse(c)).startsWith("HTTP/1.1 200").endsWith("GET " + path + " HTTP/1.1");
            }
        }
        // /b went on the kept-alive connection, died there, and went again whole on a fresh one.
        assertThat(upstreamConnections.get()).isEqualTo(2);
        List<String> b = seen.stream().filter(h -> h.startsWith("GET /b HTTP/1.1\r\n")).toList();
        assertThat(b).hasSize(2);
        assertThat(b.get(1)).isEqualTo(b.get(0)).containsIgnoringCase("host: site\r\n");
    }

    @Test
    void anUpstreamThatDiesOrStallsAfterItsHeadGivesTheClientAWhole502Or504AndTheConnectionLivesOn() throws Exception {
        int port = portico(app(), "read-timeout = 300ms");
        try (RawHttp c = new RawHttp(port)) {
            // Nothing of the upstream's head reached the client yet, so the client gets an answer, not a cut
            // connection; and on the same connection the next request goes through.
            for (String[] pathAndStatus : new String[][] {{"/head-then-close", "502"}, {"/head-then-stall", "504"}}) {
                c.send("GET " + pathAndStatus[0] + " HTTP/1.1\r\nHost: site\r\n\r\n");
                assertThat(readResponse(c)).startsWith("HTTP/1.1 " + pathAndStatus[1])
                        .doesNotContainIgnoringCase("connection: close");
                c.send("GET /after HTTP/1.1\r\nHost: site\r\n\r\n");
                assertThat(readResponse(c)).startsWith("HTTP/1.1 200").endsWith("GET /after HTTP/1.1");
            }
        }
        // the app acted on each request once: a request whose answer had begun is not replayed
        assertThat(seen.stream().filter(h -> h.startsWith("GET /head-then-"))).hasSize(2);
    }

    @Test
    void upstreamDownIs502WithTheServersErrorPage() throws Exception {
        try (RefusedPort refused = new RefusedPort();
                RawHttp c = new RawHttp(portico(refused.port()))) {
            c.send("GET / HTTP/1.1\r\nHost: site\r\n\r\n");
            assertThat(readResponse(c)).startsWith("HTTP/1.1 502");
        }
    }
}
