package io.portico.cli;

import io.portico.config.DemoAppConfig;
import io.portico.config.ListenAddress;
import io.portico.demo.DemoApp;
import io.portico.demo.DemoAppStartException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code portico demo-app}: the gunicorn stand-in, alone in its process, until SIGTERM or SIGINT. */
@Command(
        name = "demo-app",
        mixinStandardHelpOptions = true,
        description = "Runs an app server that behaves like gunicorn with N sync workers (/, /hello/NAME, /block?ms=,"
                + " /echo, /files/PATH, /health, /big?kb=), to measure Portico against without Python.")
public final class DemoAppCommand implements Callable<Integer> {

    @Option(names = "--listen", required = true, paramLabel = "HOST:PORT|unix:PATH",
            description = "Where to listen: 127.0.0.1:8000, [::1]:8000, *:8000 or unix:/run/app.sock.")
    String listen;

    @Option(names = "--workers", defaultValue = "2", paramLabel = "N",
            description = "Sync workers: requests in service at once; the rest wait (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--keepalive", description = "Keep connections open between requests (default: close after each"
            + " response, as gunicorn's sync workers do).")
    boolean keepalive;

    @Option(names = "--root", defaultValue = "static", paramLabel = "DIR",
            description = "Directory /files/ serves (default: ${DEFAULT-VALUE}).")
    Path root;

    @Spec
    CommandSpec spec;

    /** Completed by the shutdown hook; tests complete it to stop a running command. */
    final CompletableFuture<Void> stop = new CompletableFuture<>();

    @Override
    public Integer call() {
        DemoAppConfig config;
        try {
            if (workers <= 0) {
                throw new IllegalArgumentException(String.format("--workers: %s (expected: > 0)", workers));
            }
            config = config(listen, workers, keepalive, root);
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("demo-app: " + e.getMessage());
            return 2;
        }
        DemoApp app;
        try {
            app = DemoApp.start(config);
        } catch (DemoAppStartException e) {
            spec.commandLine().getErr().println("demo-app: " + e.getMessage());
            return 1;
        }
        Thread hook = new Thread(() -> {
            app.close();
            stop.complete(null);
        }, "demo-app-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        spec.commandLine().getOut().printf("demo-app listening on %s (%d sync workers, keep-alive %s)%n",
                describe(app), workers, keepalive ? "on" : "off");
        spec.commandLine().getOut().flush();
        stop.join();
        app.close();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyShuttingDown) {
            // the hook is what completed stop
        }
        return 0;
    }

    private static String describe(DemoApp app) {
        if (app.localAddress() instanceof InetSocketAddress inet) {
            String host = inet.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
        }
        return "unix:" + app.localAddress(); // a DomainSocketAddress prints as its path
    }

    /** Parses {@code HOST:PORT}, {@code [V6]:PORT}, {@code *:PORT} or {@code unix:PATH}. */
    static DemoAppConfig config(String listen, int workers, boolean keepalive, Path root) {
        if (listen.startsWith("unix:")) {
            String path = listen.substring("unix:".length());
            if (path.isEmpty()) {
                throw new IllegalArgumentException("--listen: " + listen + " (expected: unix:PATH)");
            }
            return new DemoAppConfig(true, null, workers, keepalive, root, Optional.of(Path.of(path)));
        }
        int colon = listen.lastIndexOf(':');
        String host = colon < 0 ? "" : listen.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(listen.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 0 || port > 65535 || !(host.equals("*") || isLiteral(host))) {
            throw new IllegalArgumentException(
                    "--listen: " + listen + " (expected: HOST:PORT with an IP literal or *, or unix:PATH)");
        }
        return new DemoAppConfig(true, new ListenAddress(host, port), workers, keepalive, root);
    }

    /** An IP literal, or {@code localhost}; anything else would need DNS, which a listen address should not. */
    private static boolean isLiteral(String host) {
        return host.equals("localhost") || host.matches("[0-9.]+") || host.indexOf(':') >= 0;
    }
}
