package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.ConfigLoader;
import io.portico.config.PorticoConfig;
import io.portico.metrics.AccessLog;
import io.portico.route.HostRouter;
import io.portico.route.Router;
import io.portico.transport.Transport;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
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
 * The whole request path of one keep-alive connection, bytes in to bytes out, without sockets: the client pipeline
 * exactly as {@link ClientChannelInitializer} builds it, on an {@code EmbeddedChannel}. What it measures is the
 * Java work per request that wrk runs cannot separate from the kernel's and the machine's noise: compare
 * {@code gc.alloc.rate.norm} (exact) and ns/op (noisy on a shared box) before and after a hot-path change.
 *
 * <pre>java -cp target/test-classes:target/classes:$(deps) org.openjdk.jmh.Main PipelineBenchmark -prof gc</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
public class PipelineBenchmark {
    /**
     * static: a cached 1 KiB file; passed: the same behind a zone it never exceeds (what a limit costs when it
     * passes); expires: the same from a location with {@code expires = 1h}; return: a fixed 200; rejected: a
     * rate-limited location over its limit.
     */
    @Param({"static", "passed", "expires", "return", "rejected"})
    String target;

    /** off, or a file the access log writes to (/dev/null: the line is built and queued, the disk costs nothing). */
    @Param({"off"})
    String accessLog;

    private Path dir;
    private MultiThreadIoEventLoopGroup unused;
    private Targets targets;
    private io.portico.metrics.PorticoMetrics metrics;
    private EmbeddedChannel channel;
    private ByteBuf request;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        dir = Files.createTempDirectory("pipeline-bench");
        Files.write(dir.resolve("1k.txt"), new byte[1024]);
        PorticoConfig config = ConfigLoader.parse("""
                portico {
                  access-log = %s
                  limits.keepalive-requests = 2147483647
                  rate-limits {
                    one { rate = 1r/m, burst = 0, nodelay = true, status = 503 }
                    never { rate = 1000000r/s, burst = 1000000, nodelay = true }
                  }
                  locations = [
                    { path = "/static/", alias = "%s/" }
                    { path = "/passed/", alias = "%s/", rate-limit = never }
                    { path = "/expires/", alias = "%s/", expires = 1h }
                    { exact = "/return", return = { status = 200, body = "Hello, World!" } }
                    { path = "/limited/", return = { status = 200, body = "never" }, rate-limit = one }
                  ]
                }
                """.formatted(accessLog.equals("off") ? "off" : "\"" + accessLog + "\"", dir, dir, dir),
                "pipeline-bench.conf", dir);
        Transport transport = Transport.detect();
        unused = new MultiThreadIoEventLoopGroup(1, transport.ioHandlerFactory());
        metrics = new io.portico.metrics.PorticoMetrics();
        targets = Targets.start(config, unused, transport, metrics, new ServerState(), null);
        Router router = Router.build(config.locations(), location -> targets.responder(null, location));
        io.netty.channel.ChannelHandler initializer = Pipelines.initializer(config, HostRouter.of(router),
                targets.rateLimits(), targets::meters, metrics);
        channel = new LoopbackEmbeddedChannel();
        channel.pipeline().addLast(initializer);
        String path = switch (target) {
            case "static" -> "/static/1k.txt";
            case "passed" -> "/passed/1k.txt";
            case "expires" -> "/expires/1k.txt";
            case "return" -> "/return";
            default -> "/limited/x";
        };
        request = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(
                ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n").getBytes(StandardCharsets.US_ASCII)));
        for (int i = 0; i < 3; i++) { // the first answers load the file cache off the loop
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            channel.writeInbound(request.duplicate());
            while (drain() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
                channel.runPendingTasks();
            }
        }
        if (!channel.isOpen()) {
            throw new IllegalStateException("the pipeline closed the connection while warming up");
        }
    }

    @Benchmark
    public int request() {
        channel.writeInbound(request.duplicate());
        return drain();
    }

    private int drain() {
        int bytes = 0;
        Object out;
        while ((out = channel.readOutbound()) != null) {
            if (out instanceof ByteBuf buf) {
                bytes += buf.readableBytes();
            }
            ReferenceCountUtil.release(out);
        }
        return bytes;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        channel.finishAndReleaseAll();
        targets.close();
        metrics.close();
        unused.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        Files.delete(dir.resolve("1k.txt"));
        Files.delete(dir);
    }

    /** The pipeline reads its peer as an internet address, as a socket channel's is. */
    private static final class LoopbackEmbeddedChannel extends EmbeddedChannel {
        @Override
        protected SocketAddress remoteAddress0() {
            return new InetSocketAddress("127.0.0.1", 40000);
        }
    }
}
