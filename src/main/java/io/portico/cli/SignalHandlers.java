package io.portico.cli;

import io.portico.metrics.LogFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * What {@code serve} does on the signals an operator sends besides TERM and INT (which drain, through the shutdown
 * hook): HUP, what {@code systemctl reload} and {@code portico reload} send, reloads the configuration file (where
 * the JVM's default would run the shutdown); USR1, what logrotate's nginx recipe sends, reopens the log files, where
 * the JVM's default would end the process at once and lose the access log's buffered lines.
 *
 * <p>sun.misc.Signal (jdk.unsupported) is the only way to handle a signal in Java 17. The JVM runs each handler on a
 * thread of its own, never on an event loop, so opening files there blocks nothing that serves requests.
 */
final class SignalHandlers {
    private static final Logger log = LoggerFactory.getLogger(SignalHandlers.class);

    private SignalHandlers() {}

    /**
     * @param reload what HUP runs: on a thread of its own, so that a slow reload (certificates to read, a shared
     *     store to reach) holds up no other signal; reloads queue one behind the other in the server
     */
    static void install(Runnable reload) {
        handle("HUP", s -> {
            log.info("SIGHUP: reloading the configuration");
            Thread t = new Thread(reload, "portico-reload-signal");
            t.setDaemon(true);
            t.start();
        });
        handle("USR1", s -> reopenLogs());
    }

    static void reopenLogs() {
        LogFiles.Result result = LogFiles.reopen();
        log.info("SIGUSR1: reopened {} log file(s) {}", result.reopened().size(), result.reopened());
        for (String failure : result.failed()) {
            log.error("SIGUSR1: cannot reopen {}; still writing to the old file", failure);
        }
    }

    private static void handle(String name, sun.misc.SignalHandler handler) {
        try {
            sun.misc.SignalHandler before = Signal.handle(new Signal(name), handler);
            if (before == sun.misc.SignalHandler.SIG_IGN && name.equals("HUP")) {
                // HotSpot leaves a shutdown signal (HUP, INT, TERM) that was ignored when the JVM started ignored,
                // and says so only by returning SIG_IGN: under nohup (or a parent that ignores HUP) a reload by
                // signal would do nothing, silently.
                log.warn("SIGHUP was ignored when this process started (nohup?): the JVM keeps it ignored, so"
                        + " SIGHUP and `portico reload` will not reload; start portico without nohup (a service"
                        + " manager starts it with SIGHUP at its default) to reload by signal");
            }
        } catch (IllegalArgumentException e) {
            // the platform has no such signal, or the JVM keeps it for itself (-Xrs): the default stays
            log.warn("cannot handle SIG{} here ({}); it keeps its default action", name, e.getMessage());
        }
    }
}
