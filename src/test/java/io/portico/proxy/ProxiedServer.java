package io.portico.proxy;

import static org.awaitility.Awaitility.await;

import io.portico.config.ForwardedHeader;
import io.portico.config.HealthCheckConfig;
import io.portico.config.TargetConfig;
import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import io.portico.metrics.Scrape;
import io.portico.server.PorticoServer;
import io.portico.testing.LogCapture;
import io.portico.testing.TestServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The real Portico in front of one upstream, {@code app}, for the proxy tests: the same config records the tests
 * build with {@link TestConfigs} are written out as the configuration text a user would write, and the server is
 * started from it, with the limits the tests assume. What the proxy recorded of each exchange (upstream tried,
 * its time, the failure note) is read back from the access log lines, and the state of the upstream's servers
 * from the metrics, as an operator sees them.
 */
final class ProxiedServer implements AutoCloseable {
    /** Where the server's metrics are, for what the harness read off the pool's objects. */
    private static final String METRICS = "/portico-test-metrics";
    private static final Pattern UPSTREAM_FIELDS =
            Pattern.compile(" uaddr=(.*?) urt=([-0-9.]+(?:, [-0-9.]+)*)(?: (.*))?$");

    final PorticoServer server;
    private final UpstreamConfig upstream;
    private final Path dir;
    private final LogCapture access;

    ProxiedServer(UpstreamConfig upstream, TargetConfig.Proxy target, long maxBodySize, int loops, boolean epoll) {
        this(upstream, target, maxBodySize, loops, epoll, "/", false);
    }

    /**
     * @param prefix the location's path prefix
     * @param trusted whether the client (loopback) is a trusted proxy, whose forwarding headers are believed
     */
    ProxiedServer(UpstreamConfig upstream, TargetConfig.Proxy target, long maxBodySize, int loops, boolean epoll,
            String prefix, boolean trusted) {
        this(upstream, "path = \"" + prefix + "\", " + location(target), maxBodySize, loops, epoll, trusted);
    }

    /** With a location of the test's own ({@code location}: its keys, without braces). */
    ProxiedServer(UpstreamConfig upstream, String location, long maxBodySize, int loops, boolean epoll,
            boolean trusted) {
        this.upstream = upstream;
        try {
            dir = Files.createTempDirectory("portico-proxy-test");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String config = "workers = " + loops + "\n"
                + (epoll ? "" : "transport = nio\n")
                + "access-log = \"" + dir.resolve("access.log") + "\"\n"
                + "limits { max-request-line = 8k, max-header-size = 16k, max-header-count = 100,"
                + " max-body-size = " + maxBodySize + ", client-header-timeout = 10s, client-body-timeout = 10s,"
                + " send-timeout = 10s, keepalive-timeout = 10s, keepalive-requests = 1000, max-connections = 1000 }\n"
                + (trusted ? "trusted-proxies = [\"127.0.0.1/32\"]\n" : "")
                + "upstreams { app " + upstream(upstream) + " }\n"
                + "locations = [ { " + location + " },"
                + " { exact = \"" + METRICS + "\", metrics = prometheus } ]\n";
        server = TestServers.start(config);
        // After the start: the server's access log takes the logger over, then the capture joins it.
        access = new LogCapture("portico.access");
    }

    int port() {
        return TestServers.port(server);
    }

    /** Whether the upstream's {@code index}th server is in rotation, as the server's metrics tell it. */
    boolean serverUp(int index) {
        String name = address(upstream.servers().get(index));
        return Scrape.of(port(), METRICS)
                .get("portico_upstream_server_up{upstream=\"app\",server=\"" + name + "\"}") == 1;
    }

    /** Requests in flight to the upstream's {@code index}th server, as the server's metrics tell it. */
    long serverActive(int index) {
        String name = address(upstream.servers().get(index));
        return Scrape.of(port(), METRICS)
                .get("portico_upstream_server_active_requests{upstream=\"app\",server=\"" + name + "\"}");
    }

    /**
     * Tries of the upstream's {@code index}th server whose response (or failure) has ended, as the metrics count
     * them: the end of the upstream's part, which a buffered response reaches before the client has it.
     */
    long upstreamResponsesEnded(int index) {
        String name = address(upstream.servers().get(index));
        return (long) Scrape.of(port(), METRICS).valueOrZero(
                "portico_upstream_response_duration_seconds_count{upstream=\"app\",server=\"" + name + "\"}");
    }

    /** The access log's upstream fields of one exchange: what nginx's $upstream_addr, ..._response_time say. */
    record Logged(String upstream, long upstreamNanos, String note) {}

    /** The first {@code n} exchanges logged, once there are that many (a line is written as a response ends). */
    List<Logged> logs(int n) {
        await().atMost(Duration.ofSeconds(10)).until(() -> access.lines().stream()
                .filter(l -> !l.contains(" " + METRICS + " ")).count() >= n);
        return access.lines().stream().filter(l -> !l.contains(" " + METRICS + " ")).map(ProxiedServer::parse)
                .toList();
    }

    /** The access log lines of the first {@code n} exchanges, as written, once there are that many. */
    List<String> accessLines(int n) {
        await().atMost(Duration.ofSeconds(10)).until(() -> access.lines().stream()
                .filter(l -> !l.contains(" " + METRICS + " ")).count() >= n);
        return access.lines().stream().filter(l -> !l.contains(" " + METRICS + " ")).toList();
    }

    /** The value of one sample of the server's metrics, 0 when it has none. */
    double metric(String sample) {
        return Scrape.of(port(), METRICS).valueOrZero(sample);
    }

    /** The first exchange logged, once it is. */
    Logged log() {
        return logs(1).get(0);
    }

    private static Logged parse(String line) {
        Matcher m = UPSTREAM_FIELDS.matcher(line);
        if (!m.find()) {
            throw new AssertionError("an access log line without uaddr= and urt=: " + line);
        }
        String[] times = m.group(2).split(", ");
        String last = times[times.length - 1];
        // milliseconds, as in nginx's log: "-" when no server was tried
        long nanos = last.equals("-") ? -1 : Math.round(Double.parseDouble(last) * 1_000_000_000L);
        return new Logged(m.group(1), nanos, m.group(3) == null ? "-" : m.group(3));
    }

    @Override
    public void close() {
        access.close();
        server.stop();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp directory
        }
    }

    private static String upstream(UpstreamConfig u) {
        List<String> servers = new ArrayList<>();
        for (UpstreamServerConfig s : u.servers()) {
            servers.add("{ address = \"" + address(s) + "\", weight = " + s.weight() + ", max-fails = " + s.maxFails()
                    + ", fail-timeout = " + ms(s.failTimeout()) + ", backup = " + s.backup() + " }");
        }
        StringBuilder b = new StringBuilder("{ servers = [" + String.join(", ", servers) + "]")
                .append(", balance = ").append(u.balance().name().toLowerCase(Locale.ROOT).replace('_', '-'))
                .append(", hash-key = \"").append(u.hashKey()).append('"')
                .append(", keepalive = ").append(u.keepalive())
                .append(", keepalive-timeout = ").append(ms(u.keepaliveTimeout()))
                .append(", max-connections = ").append(u.maxConnections())
                .append(", max-queue = ").append(u.maxQueue())
                .append(", queue-timeout = ").append(ms(u.queueTimeout()))
                .append(", connect-timeout = ").append(ms(u.connectTimeout()))
                .append(", send-timeout = ").append(ms(u.sendTimeout()))
                .append(", read-timeout = ").append(ms(u.readTimeout()))
                .append(", retries = ").append(u.retries())
                .append(", proxy-max-header-size = ").append(u.proxyMaxHeaderSize())
                .append(", proxy-max-header-count = ").append(u.proxyMaxHeaderCount());
        u.healthCheck().ifPresent(h -> b.append(", health-check ").append(health(h)));
        return b.append(" }").toString();
    }

    private static String address(UpstreamServerConfig s) {
        return s.address() instanceof UpstreamAddress.Unix unix ? "unix:" + unix.path()
                : ((UpstreamAddress.Tcp) s.address()).host() + ":" + ((UpstreamAddress.Tcp) s.address()).address().getPort();
    }

    private static String health(HealthCheckConfig h) {
        return "{ path = \"" + h.path() + "\", interval = " + ms(h.interval()) + ", timeout = " + ms(h.timeout())
                + ", rise = " + h.rise() + ", fall = " + h.fall() + ", expect = \"" + h.expectMin() + "-"
                + h.expectMax() + "\" }";
    }

    private static String location(TargetConfig.Proxy t) {
        return "proxy = \"" + t.uriPrefix().map(p -> "http://" + t.upstream() + p).orElse(t.upstream()) + "\""
                + ", host = " + (t.hostFromUpstream() ? "upstream" : "client")
                + ", proxy-request-buffering = " + t.requestBuffering()
                + ", proxy-response-buffering = " + t.responseBuffering()
                + ", client-body-buffer-size = " + t.clientBodyBufferSize()
                + ", proxy-buffers = " + t.proxyBuffers()
                + ", via = " + t.via()
                + ", forwarded-headers = [" + t.forwardedHeaders().stream().map(h -> h.header)
                        .map(h -> '"' + h + '"').collect(Collectors.joining(", ")) + "]"
                + ", set-request-headers " + headers(t.setRequestHeaders())
                + ", set-response-headers " + headers(t.setResponseHeaders())
                + ", merge-slashes = " + t.mergeSlashes()
                + ", ignore-client-abort = " + t.ignoreClientAbort();
    }

    private static String headers(Map<String, ?> headers) {
        return headers.entrySet().stream().map(e -> "\"" + e.getKey() + "\" = \"" + e.getValue() + "\"")
                .collect(Collectors.joining(", ", "{ ", " }"));
    }

    private static String ms(Duration d) {
        return d.toMillis() + "ms";
    }
}
