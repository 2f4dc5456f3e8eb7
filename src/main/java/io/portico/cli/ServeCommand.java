package io.portico.cli;

import io.portico.config.PorticoConfig;
import io.portico.server.ListenException;
import io.portico.server.PorticoServer;
import io.portico.demo.DemoApp;
import io.portico.demo.DemoAppStartException;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code portico serve}: run until SIGTERM or SIGINT, then drain gracefully; SIGHUP reloads the configuration file
 * and SIGUSR1 reopens the log files ({@link SignalHandlers}). The process id goes to {@code pid-file} once every
 * listener is bound, and is removed at exit.
 */
@Command(name = "serve", mixinStandardHelpOptions = true, description = "Run Portico (the default command).")
final class ServeCommand implements Callable<Integer> {
    @Mixin
    ConfigOptions conf;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        PorticoConfig config = conf.loadOrReport(err, "not started");
        if (config == null) {
            return 1;
        }
        ConfigWarnings.of(config).forEach(w -> err.println("warning: " + w));
        Running running;
        try {
            running = Running.start(config);
        } catch (ListenException e) {
            err.println("portico: " + e.getMessage());
            err.flush();
            return 1;
        }
        // The shutdown hook and the signal handlers first: the listeners accept from now on, and a SIGTERM that came
        // before the hook would end the JVM without the drain (a test sending it as soon as the port accepted saw
        // that once the start-up collection below made the window tens of milliseconds long); a SIGHUP before its
        // handler would stop the JVM (its default action) instead of reloading.
        AtomicReference<PidFile> written = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread shutdown = new Thread(() -> {
            running.close();
            PidFile p = written.get();
            if (p != null) {
                p.remove();
            }
            Logs.flush(); // after the drain's lines
            stopped.countDown();
        }, "portico-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        SignalHandlers.install(() -> running.server().reloadFrom(conf.file, Optional.ofNullable(conf.prefix)));
        StartupHeap.settle(); // before the pid file says the server is ready
        if (config.pidFile().isPresent()) {
            try {
                written.set(PidFile.write(config.pidFile().get()));
            } catch (IOException e) {
                // as nginx: a server that `portico reload` could not find does not start (closed here, at once: the
                // hook's drain would wait drain-delay for a server nobody was told of)
                Runtime.getRuntime().removeShutdownHook(shutdown);
                running.close();
                err.println("portico: cannot write pid-file " + config.pidFile().get() + ": " + e
                        + " (pid-file = off to run without one)");
                err.flush();
                return 1;
            }
        }
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /** What serve runs: the server, and the demo app first when the config enables it. */
    record Running(PorticoServer server, Optional<DemoApp> demoApp) implements AutoCloseable {
        static Running start(PorticoConfig config) throws ListenException {
            Optional<DemoApp> demo = Optional.empty();
            if (config.demoApp().enabled()) {
                try {
                    demo = Optional.of(DemoApp.start(config.demoApp()));
                    LoggerFactory.getLogger(ServeCommand.class).info(
                            "demo-app (the stand-in app server) listening on {} with {} sync workers",
                            demo.get().localAddress(), config.demoApp().workers());
                } catch (DemoAppStartException e) {
                    throw new ListenException("demo-app: " + e.getMessage(), e);
                }
            }
            try {
                return new Running(PorticoServer.start(config), demo);
            } catch (ListenException e) {
                demo.ifPresent(DemoApp::close);
                throw e;
            }
        }

        @Override
        public void close() {
            server.stop();
            demoApp.ifPresent(DemoApp::close);
        }
    }
}
