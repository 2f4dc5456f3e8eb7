package io.portico.ratelimit;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.config.RateLimitZoneConfig;
import io.portico.exchange.Route;
import io.portico.testing.FakeClientExchange;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The decision hot path: find the client's state among known clients and charge it (target: under 200 ns).
 * {@code keyAndTake} adds building the key from the request's client address, as the handler does (over the
 * first 1,024 clients). {@code passLookedUp} and {@code passRemembered} are one keep-alive connection of one
 * client that its zone never rejects, as the handler charges it, without and with the connection's
 * {@link SlotMemo} (the compact store; they ignore the parameters: run them with
 * {@code -p clients=1024 -p store=COMPACT}).
 *
 * <p>Run: {@code mvn -q -o test-compile && java -cp target/test-classes:target/classes:$(cat cp.txt)
 * io.portico.ratelimit.ZoneDecisionBenchmark} (cp.txt from {@code mvn dependency:build-classpath}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Xmx1g")
public class ZoneDecisionBenchmark {
    /** 1,024 clients fit in the CPU caches; 100,000 do not (about 11 MB of state), as on a busy server. */
    @Param({"1024", "100000"})
    int clients;

    @Param({"COMPACT", "BUCKET4J"})
    String store;

    private ZoneStore zone;
    private ClientKey[] keys;
    private RequestKey requestKey;
    private FakeClientExchange[] requests;
    private HttpRequest request;

    @Setup
    public void setUp() {
        // Long enough a memory (100 s) that no client expires while the benchmark cycles through them all.
        RateLimitZoneConfig config = new RateLimitZoneConfig(
                "allips", "client-ip", 1000, Duration.ofSeconds(1), 100_000, true, 0, 429, 1_000_000, false, 64,
                RateLimitZoneConfig.Headers.ON_REJECT);
        // As in production (RateLimits.create): cache maintenance off the request thread.
        zone = StoreKind.valueOf(store).create(config, NanoClock.SYSTEM, ZoneUpkeep.SHARED);
        keys = new ClientKey[clients];
        requests = new FakeClientExchange[1024];
        EmbeddedChannel channel = new EmbeddedChannel();
        for (int i = 0; i < clients; i++) {
            keys[i] = ClientKey.ipv4(0x0a000000 + i * 7919 % 0xffffff);
            zone.take(keys[i], System.nanoTime());
        }
        for (int i = 0; i < requests.length; i++) {
            String ip = "10." + (i >> 8) + "." + (i & 0xff) + ".1";
            requests[i] = new FakeClientExchange(channel, new Route(Configs.location(List.of(), List.of()), null))
                    .client(ip);
        }
        requestKey = RequestKey.parse("allips", "client-ip", 64);
        request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
    }

    @State(Scope.Thread)
    public static class Cursor {
        int next;
    }

    @Benchmark
    public long take(Cursor cursor) {
        int i = cursor.next = (cursor.next + 1) % clients;
        return zone.take(keys[i], System.nanoTime());
    }

    @Benchmark
    public long keyAndTake(Cursor cursor) {
        int i = cursor.next = (cursor.next + 1) & 1023;
        return zone.take(requestKey.of(requests[i], request), System.nanoTime());
    }

    /** One client's keep-alive connection; its zone (10^9 r/s, burst 10^9) admits every request at once. */
    @State(Scope.Thread)
    public static class Connection {
        ZoneStore zone;
        RequestKey key;
        FakeClientExchange client;
        HttpRequest request;
        final SlotMemo memo = new SlotMemo();

        @Setup
        public void setUp() {
            RateLimitZoneConfig config = new RateLimitZoneConfig(
                    "allips", "client-ip", 1_000_000_000, Duration.ofSeconds(1), 1_000_000_000, true, 0, 429,
                    1_000_000, false, 64, RateLimitZoneConfig.Headers.ON_REJECT);
            zone = StoreKind.COMPACT.create(config, NanoClock.SYSTEM, ZoneUpkeep.SHARED);
            key = RequestKey.parse("allips", "client-ip", 64);
            client = new FakeClientExchange(new EmbeddedChannel(),
                    new Route(Configs.location(List.of(), List.of()), null)).client("10.0.0.1");
            request = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/");
        }
    }

    @Benchmark
    public long passLookedUp(Connection connection) {
        return connection.zone.take(connection.key.of(connection.client, connection.request), System.nanoTime());
    }

    @Benchmark
    public long passRemembered(Connection connection) {
        return connection.zone.take(connection.key.of(connection.client, connection.request), System.nanoTime(),
                connection.memo);
    }

    public static void main(String[] args) throws RunnerException, CommandLineOptionException {
        new Runner(new OptionsBuilder()
                .parent(new CommandLineOptions(args)) // e.g. -p store=COMPACT
                .include(ZoneDecisionBenchmark.class.getSimpleName())
                .build()).run();
    }
}
