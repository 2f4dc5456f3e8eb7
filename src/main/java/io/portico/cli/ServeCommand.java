package io.portico.cli;

import io.portico.config.PorticoConfig;
import io.portico.server.ListenException;
import io.portico.server.PorticoServer;
import io.portico.demo.DemoApp;
import io.portico.demo.DemoAppStartException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
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
        // The shutdown hook and the signal handlers come before the listeners bind: from the bind on the server
        // accepts, and a SIGTERM with no hook yet would end the JVM without the drain (a test sending it as soon as
        // the port accepted saw that), a SIGHUP with no handler would stop it (its default action). A signal during
        // the start waits for the start to end, then acts on what started.
        Startup startup = new Startup();
        CountDownLatch stopped = new CountDownLatch(1);
        Thread shutdown = new Thread(() -> {
            startup.stop().ifPresent(Running::close);
            startup.pidFile().ifPresent(PidFile::remove);
            Logs.flush(); // after the drain's lines
            stopped.countDown();
        }, "portico-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdown);
        SignalHandlers.install(() -> startup.awaitStarted().ifPresent(
                r -> r.server().reloadFrom(conf.file, Optional.ofNullable(conf.prefix))));
        Running running;
        try {
            running = Running.start(config);
        } catch (ListenException e) {
            startup.failed();
            removeHook(shutdown);
            err.println("portico: " + e.getMessage());
            err.flush();
            return 1;
        } catch (RuntimeException e) {
            startup.failed();
            removeHook(shutdown);
            throw e;
        }
        startup.started(running);
        StartupHeap.settle(); // before the pid file says the server is ready
        if (config.pidFile().isPresent()) {
            try {
                startup.writePidFile(config.pidFile().get());
            } catch (IOException e) {
                // as nginx: a server that `portico reload` could not find does not start (closed here, at once: the
                // hook's drain would wait drain-delay for a server nobody was told of)
                if (removeHook(shutdown)) {
                    running.close();
                }
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

    /** False when the JVM is already shutting down: the hook runs (or ran) and owns the close. */
    private static boolean removeHook(Thread hook) {
        try {
            return Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return false;
        }
    }

    /**
     * The start as the signal threads and the shutdown hook see it: one owner of what started, of whether a stop
     * came, and of the pid file, so that a stop during the start closes what started and never leaves a pid file
     * behind.
     */
    static final class Startup {
        private final CountDownLatch ended = new CountDownLatch(1);
        private Running running;
        private boolean stopping;
        private PidFile pidFile;

        synchronized void started(Running r) {
            running = r;
            ended.countDown();
        }

        void failed() {
            ended.countDown();
        }

        /** Waits for the start to end: it only binds, so a signal during it waits a few milliseconds. */
        Optional<Running> awaitStarted() {
            boolean interrupted = false;
            while (true) {
                try {
                    ended.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                return Optional.ofNullable(running);
            }
        }

        /** Marks the stop and returns what to close; once called no pid file is written. */
        Optional<Running> stop() {
            Optional<Running> r = awaitStarted();
            synchronized (this) {
                stopping = true;
            }
            return r;
        }

        synchronized Optional<PidFile> pidFile() {
            return Optional.ofNullable(pidFile);
        }

        /** Writes the pid file unless a stop has begun (the hook would not remove one written after it looked). */
        synchronized void writePidFile(Path path) throws IOException {
            if (!stopping) {
                pidFile = PidFile.write(path);
            }
        }
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
