package io.portico.bench;

import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What to load and how. {@code requests} and {@code repetitions} are 0 when not set; when neither they nor
 * {@code duration} is set the run lasts {@link #DEFAULT_DURATION}. {@code rate} is 0 for the closed loop and
 * requests per second for the open loop. {@code insecure}: https without certificate verification; {@code h2}: HTTP/2
 * (ALPN h2 over https, prior knowledge h2c over http) with {@code streams} concurrent streams per connection.
 */
public record BenchOptions(
        List<RequestTarget> targets,
        int connections,
        long requests,
        long repetitions,
        Duration duration,
        boolean keepAlive,
        List<Map.Entry<String, String>> headers,
        Duration warmup,
        Duration timeout,
        Duration connectTimeout,
        double rate,
        List<InetAddress> sourceIps,
        int threads,
        boolean insecure,
        boolean h2,
        int streams) {

    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(10);

    public BenchOptions {
        targets = List.copyOf(targets);
        headers = List.copyOf(headers);
        sourceIps = List.copyOf(sourceIps);
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("urls: none (expected: at least one URL or -f FILE)");
        }
        check(connections > 0, "connections: %s (expected: > 0)", connections);
        check(requests >= 0, "requests: %s (expected: >= 0)", requests);
        check(repetitions >= 0, "repetitions: %s (expected: >= 0)", repetitions);
        check(threads > 0, "threads: %s (expected: > 0)", threads);
        check(rate >= 0, "rate: %s (expected: >= 0)", rate);
        check(!timeout.isNegative() && !timeout.isZero(), "timeout: %s (expected: > 0)", timeout);
        check(!connectTimeout.isNegative() && !connectTimeout.isZero(), "connectTimeout: %s (expected: > 0)",
                connectTimeout);
        check(!warmup.isNegative(), "warmup: %s (expected: >= 0)", warmup);
        check(duration == null || !duration.isNegative() && !duration.isZero(), "duration: %s (expected: > 0)",
                duration);
        check(rate == 0 || repetitions == 0, "repetitions: %s (expected: not with -R, use -n or -t)", repetitions);
        check(streams > 0, "streams: %s (expected: > 0)", streams);
        check(h2 || streams == 1, "-m %s: streams per connection are an HTTP/2 thing (expected: with --h2)", streams);
        check(!h2 || keepAlive, "--no-keepalive: %s (expected: not with --h2, whose streams share a connection)",
                "with --h2");
        if (duration == null && requests == 0 && repetitions == 0) {
            duration = DEFAULT_DURATION;
        }
    }

    /** Plain HTTP/1.1 options (certificate checks on, one request per connection at a time). */
    public BenchOptions(List<RequestTarget> targets, int connections, long requests, long repetitions,
            Duration duration, boolean keepAlive, List<Map.Entry<String, String>> headers, Duration warmup,
            Duration timeout, Duration connectTimeout, double rate, List<InetAddress> sourceIps, int threads) {
        this(targets, connections, requests, repetitions, duration, keepAlive, headers, warmup, timeout,
                connectTimeout, rate, sourceIps, threads, false, false, 1);
    }

    /**
     * With --h2 a connection serves one origin: every URL of a run must share the first's scheme, host and port
     * (checked per run, not here, since a comparison holds both sides' URLs). Throws IllegalArgumentException.
     */
    public BenchOptions requireOneOrigin() {
        if (h2) {
            RequestTarget first = targets.get(0);
            for (RequestTarget t : targets) {
                check(t.secure() == first.secure() && t.host().equalsIgnoreCase(first.host())
                        && t.port() == first.port(), "--h2: %s (expected: every URL on the scheme, host and port of "
                        + "the first, one connection each)", t.uri());
            }
        }
        return this;
    }

    /** Whether any target is https (the run needs a TLS context). */
    public boolean tls() {
        return targets.stream().anyMatch(RequestTarget::secure);
    }

    /** Virtual clients the drivers run: one per connection, or one per stream with --h2. */
    public int slots() {
        return connections * streams;
    }

    /** Options with the defaults for everything but the targets (used by tests and compare scenarios). */
    public static BenchOptions defaults(List<RequestTarget> targets) {
        return new BenchOptions(targets, 10, 0, 0, null, true, List.of(), Duration.ZERO, Duration.ofSeconds(30),
                Duration.ofSeconds(30), 0, List.of(), defaultThreads(), false, false, 1);
    }

    /** One client event loop on small machines, half the cores on larger ones (the server needs the rest). */
    public static int defaultThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }

    public boolean openLoop() {
        return rate > 0;
    }

    /** Total requests to send in the measured part of the run (0: unbounded, the duration decides). */
    public long requestBudget() {
        return requests > 0 ? requests : repetitions > 0 ? repetitions * slots() : 0;
    }

    public BenchOptions withTargets(List<RequestTarget> t) {
        return new BenchOptions(t, connections, requests, repetitions, duration, keepAlive, headers, warmup, timeout,
                connectTimeout, rate, sourceIps, threads, insecure, h2, streams);
    }

    /** These options with one more request header (the compression scenario's Accept-Encoding). */
    public BenchOptions withHeader(String name, String value) {
        List<Map.Entry<String, String>> h = new java.util.ArrayList<>(headers);
        h.add(Map.entry(name, value));
        return new BenchOptions(targets, connections, requests, repetitions, duration, keepAlive, h, warmup, timeout,
                connectTimeout, rate, sourceIps, threads, insecure, h2, streams);
    }

    public BenchOptions withLoad(int c, double r, Duration d) {
        return new BenchOptions(targets, c, 0, 0, d, keepAlive, headers, warmup, timeout, connectTimeout, r,
                sourceIps, threads, insecure, h2, streams);
    }

    public BenchOptions withSourceIps(List<InetAddress> ips) {
        return new BenchOptions(targets, connections, requests, repetitions, duration, keepAlive, headers, warmup,
                timeout, connectTimeout, rate, ips, threads, insecure, h2, streams);
    }

    public BenchOptions withTimeout(Duration t) {
        return new BenchOptions(targets, connections, requests, repetitions, duration, keepAlive, headers, warmup,
                t, connectTimeout, rate, sourceIps, threads, insecure, h2, streams);
    }

    /** These options, https certificates not verified (the built-in TLS scenario's self-signed certificate). */
    public BenchOptions withInsecure() {
        return new BenchOptions(targets, connections, requests, repetitions, duration, keepAlive, headers, warmup,
                timeout, connectTimeout, rate, sourceIps, threads, true, h2, streams);
    }

    private static void check(boolean ok, String message, Object value) {
        if (!ok) {
            throw new IllegalArgumentException(message.formatted(value));
        }
    }
}
