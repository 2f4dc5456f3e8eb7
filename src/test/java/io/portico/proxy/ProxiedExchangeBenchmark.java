package io.portico.proxy;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.portico.server.PorticoServer;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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
 * and one upstream location, and a fixed-answer Netty upstream that allocates nothing per request. {@code direct}
 * sends the same request to the upstream itself, so the difference between the two is what the proxy adds:
 * {@code gc.alloc.rate.norm} of {@code -prof gc} (exact; JMH sums the bytes every thread allocated, the server's
 * loop among them) and time per exchange (noisy on a shared box: the kernel's loopback work is in it).
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
    /** proxied: through Portico; direct: to the upstream itself (the client's and the upstream's share). */
    @Param({"proxied", "direct"})
    String path;

    private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n"
            + "Hello, World!").getBytes(StandardCharsets.US_ASCII);

    private MultiThreadIoEventLoopGroup upstreamLoop;
    private Channel upstream;
    private PorticoServer portico;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] request;
    private final byte[] buffer = new byte[16384];

    @Setup(Level.Trial)
    public void setup() throws Exception {
        upstreamLoop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        upstream = new ServerBootstrap().group(upstreamLoop).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new FixedAnswer());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), 0).sync().channel();
        int upstreamPort = ((InetSocketAddress) upstream.localAddress()).getPort();
        portico = TestServers.start("limits.keepalive-requests = 2147483647\n"
                + "upstreams { app { servers = [\"127.0.0.1:" + upstreamPort + "\"], keepalive = 16 } }\n"
                + "locations = [ { path = \"/\", proxy = app } ]\n");
        int port = path.equals("direct") ? upstreamPort : TestServers.port(portico);
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = socket.getInputStream();
        request = ("GET /hello HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nUser-Agent: jmh\r\nAccept: */*\r\n\r\n")
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
        byte[] name = "\ncontent-length:".getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = 0; i + name.length < headEnd; i++) {
            for (int j = 0; j < name.length; j++) {
                if (Character.toLowerCase(buffer[i + j]) != name[j]) {
                    continue outer;
                }
            }
            int v = 0;
            for (int k = i + name.length; buffer[k] != '\r'; k++) {
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
        upstream.close().sync();
        upstreamLoop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
    }

    /** Answers each request head (its blank line) with {@link #ANSWER}, from one shared read-only buffer. */
    private static final class FixedAnswer extends ChannelInboundHandlerAdapter {
        private static final ByteBuf SHARED = Unpooled.unreleasableBuffer(
                Unpooled.directBuffer(ANSWER.length).writeBytes(ANSWER)).asReadOnly();
        private int matched; // bytes of "\r\n\r\n" seen at the end of the last read

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                for (int i = b.readerIndex(); i < b.writerIndex(); i++) {
                    byte c = b.getByte(i);
                    matched = c == (matched % 2 == 0 ? '\r' : '\n') ? matched + 1 : c == '\r' ? 1 : 0;
                    if (matched == 4) {
                        matched = 0;
                        ctx.write(SHARED.duplicate(), ctx.voidPromise());
                    }
                }
            } finally {
                b.release();
            }
            ctx.flush();
        }
    }
}
