package io.portico.staticfile;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * The hot path: a cached 1 KiB file answered on the event loop (resolve, cache hit, conditionals, headers), with and
 * without the HTTP response encoder, over an EmbeddedChannel so sockets and the machine's noise stay out.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StaticHitBenchmark {
    @Param({"false", "true"})
    boolean encode;

    Path dir;
    StaticFiles files;
    Responder responder;
    EmbeddedChannel channel;
    FakeClientExchange client;
    HttpRequest request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/static/1k.txt");

    @Setup(Level.Trial)
    public void setup() throws IOException {
        dir = Files.createTempDirectory("static-bench");
        Files.write(dir.resolve("1k.txt"), new byte[1024]);
        StaticConfig config = new StaticConfig(64 << 20, 256 << 10, Duration.ofHours(1),
                StaticConfig.FollowSymlinks.INSIDE_ROOT, Map.of(), 64 << 10);
        TargetConfig.Static target = new TargetConfig.Static(dir, true, List.of("index.html"), List.of(), false,
                Optional.empty(), Optional.empty(), false, false);
        files = StaticFiles.create(config, Runnable::run, System::nanoTime, java.time.Clock.systemUTC());
        responder = files.responder(Harness.location("/static/", target), target, name -> null);
        channel = encode ? new EmbeddedChannel(new HttpResponseEncoder()) : new EmbeddedChannel();
        client = new FakeClientExchange(channel, new Route(Harness.location("/static/", target), responder))
                .path("/static/1k.txt").secure(false);
    }

    @Benchmark
    public Object cachedHit() {
        Exchange exchange = responder.open(client, request);
        exchange.onContent(LastHttpContent.EMPTY_LAST_CONTENT);
        Object out = null;
        Object message;
        while ((message = channel.readOutbound()) != null) {
            out = message;
            ReferenceCountUtil.release(message);
        }
        return out;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        channel.finishAndReleaseAll();
        files.close();
        Files.delete(dir.resolve("1k.txt"));
        Files.delete(dir);
    }
}
