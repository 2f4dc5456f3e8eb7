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
        StartupHeap.settle(); // before the pid file says the server is ready
        // Before the pid file: whoever reads it (portico reload, a service manager, a test) may signal at once, and a
        // SIGHUP that came before the handler would have stopped the JVM (its default action) instead of reloading.
        SignalHandlers.install(() -> running.server().reloadFrom(conf.file, Optional.ofNullable(conf.prefix)));
        PidFile pid = null;
        if (config.pidFile().isPresent()) {
            try {
                pid = PidFile.write(config.pidFile().get());
            } catch (IOException e) {
                // as nginx: a server that `portico reload` could not find does not start
                running.close();
                err.println("portico: cannot write pid-file " + config.pidFile().get() + ": " + e
                        + " (pid-file = off to run without one)");
                err.flush();
                return 1;
            }
        }
        CountDownLatch stopped = new CountDownLatch(1);
        PidFile written = pid;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            running.close();
            if (written != null) {
                written.remove();
            }
            Logs.flush(); // after the drain's lines
            stopped.countDown();
        }, "portico-shutdown"));
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
