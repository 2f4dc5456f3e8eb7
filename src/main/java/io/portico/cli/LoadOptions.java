package io.portico.cli;

import io.portico.bench.BenchOptions;
import io.portico.bench.DurationText;
import io.portico.bench.RequestTarget;
import io.portico.bench.UrlListFile;
import io.portico.config.IoTransport;
import io.portico.transport.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** The load options shared by {@code portico bench} and {@code portico bench compare}. */
final class LoadOptions {

    @Option(names = "-c", paramLabel = "N", description = "Connections (virtual clients), default ${DEFAULT-VALUE}.",
            defaultValue = "10")
    int connections;

    @Option(names = "-n", paramLabel = "N", description = "Total requests (measured, after warm-up).")
    long requests;

    @Option(names = "-r", paramLabel = "N", description = "Repetitions per connection (siege -r).")
    long repetitions;

    @Option(names = "-t", paramLabel = "DURATION", description = "Run time: 30s, 5m (default 10s without -n/-r).")
    String duration;

    @Option(names = {"-k", "--keepalive"}, negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "HTTP keep-alive (default on; --no-keepalive reconnects for every request).")
    boolean keepAlive = true;

    @Option(names = "-H", paramLabel = "'Name: value'", description = "Extra request header (repeatable).")
    List<String> headers = new ArrayList<>();

    @Option(names = "-m", paramLabel = "METHOD|N", description = "Request method (default GET, POST with -d); a "
            + "number is --streams (h2load's -m).")
    String methodOrStreams;

    @Option(names = "--method", paramLabel = "METHOD", description = "Request method (default GET, POST with -d).")
    String method;

    @Option(names = "--insecure", description = "https: do not verify the server's certificate (test certificates).")
    boolean insecure;

    @Option(names = "--h2", description = "HTTP/2: ALPN h2 over https, h2c with prior knowledge over http.")
    boolean h2;

    @Option(names = "--streams", paramLabel = "N", description = "With --h2: concurrent streams per connection, "
            + "each one request at a time (default 1; -m N also sets it).")
    Integer streams;

    @Option(names = "-d", paramLabel = "BODY", description = "Request body.")
    String body;

    @Option(names = "--body-file", paramLabel = "FILE", description = "Request body from a file.")
    Path bodyFile;

    @Option(names = "-f", paramLabel = "FILE", description = "URLs file (siege syntax: URL [POST body] per line).")
    Path urlFile;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "0s",
            description = "Warm-up excluded from the figures.")
    String warmup;

    @Option(names = "--client-warmup", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "Before the run, load an in-process responder until the client's own JIT is quiet (rounds "
                    + "of 20,000 requests, at most 8; one of 5,000 without keep-alive), so that the client's warm-up "
                    + "is not measured as the server's latency. Default on; the server under test sees none of it.")
    boolean clientWarmup;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30s",
            description = "Response timeout; a timed-out request is recorded at this value (default 30s).")
    String timeout;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", description = "Connect timeout (default: --timeout).")
    String connectTimeout;

    @Option(names = "-R", paramLabel = "RATE", description = "Open loop: requests per second on a fixed schedule.")
    double rate;

    @Option(names = "--source-ip", split = ",", paramLabel = "IP", description = "Local addresses to connect from.")
    List<String> sourceIps = new ArrayList<>();

    @Option(names = "--threads", paramLabel = "N", description = "Client event loops (default 1, or cores/2).")
    Integer threads;

    @Option(names = "--transport", paramLabel = "NAME", defaultValue = "${env:PORTICO_TRANSPORT:-auto}",
            description = "Client I/O: auto (io_uring where it loads, else epoll, else NIO), epoll, io_uring or nio; default "
                    + "$$PORTICO_TRANSPORT or auto.")
    String transport;

    /** The client's transport; throws IllegalArgumentException when it is unknown or does not load here. */
    Transport clientTransport() {
        IoTransport choice = IoTransport.parse(transport);
        if (choice == null) {
            throw new IllegalArgumentException("--transport: '%s' (expected: auto, epoll, io_uring or nio)"
                    .formatted(transport));
        }
        try {
            return Transport.select(choice, note -> { });
        } catch (Transport.TransportUnavailableException e) {
            throw new IllegalArgumentException("--transport " + choice.configName() + ": " + e.getMessage());
        }
    }

    /** The options for {@code urls}; throws IllegalArgumentException with a usage message when invalid. */
    BenchOptions toOptions(List<String> urls) {
        byte[] bodyBytes = readBody();
        int streamCount = streams == null ? 1 : streams;
        String chosenMethod = method;
        if (methodOrStreams != null) {
            if (methodOrStreams.chars().allMatch(Character::isDigit)) {
                if (streams != null) {
                    throw new IllegalArgumentException("-m %s and --streams: both given (expected: one of them)"
                            .formatted(methodOrStreams));
                }
                try {
                    streamCount = Integer.parseInt(methodOrStreams);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("-m: %s (expected: a method or a stream count)"
                            .formatted(methodOrStreams));
                }
            } else if (method != null) {
                throw new IllegalArgumentException("-m %s and --method: both given (expected: one of them)"
                        .formatted(methodOrStreams));
            } else {
                chosenMethod = methodOrStreams;
            }
        }
        String m = chosenMethod != null ? chosenMethod : bodyBytes.length > 0 ? "POST" : "GET";
        List<RequestTarget> targets = new ArrayList<>();
        if (urlFile != null) {
            try {
                targets.addAll(UrlListFile.parse(Files.readString(urlFile), m, bodyBytes));
            } catch (IOException e) {
                throw new IllegalArgumentException("-f: %s (cannot read: %s)".formatted(urlFile, e.getMessage()));
            }
        }
        for (String url : urls) {
            targets.add(RequestTarget.of(url, m, bodyBytes));
        }
        List<Map.Entry<String, String>> parsedHeaders = new ArrayList<>();
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("-H: %s (expected: 'Name: value')".formatted(h));
            }
            parsedHeaders.add(new AbstractMap.SimpleImmutableEntry<>(h.substring(0, colon).trim(),
                    h.substring(colon + 1).trim()));
        }
        List<InetAddress> ips = new ArrayList<>();
        for (String ip : sourceIps) {
            try {
                ips.add(InetAddress.getByName(ip.trim()));
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("--source-ip: %s (expected: an IP address)".formatted(ip));
            }
        }
        Duration t = DurationText.parse(timeout);
        return new BenchOptions(targets, connections, requests, repetitions,
                duration == null ? null : DurationText.parse(duration), keepAlive, parsedHeaders,
                DurationText.parse(warmup), t, connectTimeout == null ? t : DurationText.parse(connectTimeout), rate,
                ips, threads == null ? BenchOptions.defaultThreads() : threads, insecure, h2, streamCount);
    }

    private byte[] readBody() {
        if (body != null && bodyFile != null) {
            throw new IllegalArgumentException("-d and --body-file: both given (expected: one of them)");
        }
        if (bodyFile != null) {
            try {
                return Files.readAllBytes(bodyFile);
            } catch (IOException e) {
                throw new IllegalArgumentException("--body-file: %s (cannot read: %s)".formatted(bodyFile,
                        e.getMessage()));
            }
        }
        return body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    }
}
