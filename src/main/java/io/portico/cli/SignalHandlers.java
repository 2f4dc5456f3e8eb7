package io.portico.cli;

import io.portico.metrics.LogFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * What {@code serve} does on the signals an operator sends besides TERM and INT (which drain, through the shutdown
 * hook): HUP, what {@code systemctl reload} sends, is logged and ignored until reload exists (issue 25), where the
 * JVM's default would run the shutdown; USR1, what logrotate's nginx recipe sends, reopens the log files, where the
 * JVM's default would end the process at once and lose the access log's buffered lines.
 *
 * <p>sun.misc.Signal (jdk.unsupported) is the only way to handle a signal in Java 17. The JVM runs each handler on a
 * thread of its own, never on an event loop, so opening files there blocks nothing that serves requests.
 */
final class SignalHandlers {
    private static final Logger log = LoggerFactory.getLogger(SignalHandlers.class);

    private SignalHandlers() {}

    static void install() {
        handle("HUP", s -> log.warn(
                "reload is not supported yet; ignoring SIGHUP (restart to apply a new configuration)"));
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
            Signal.handle(new Signal(name), handler);
        } catch (IllegalArgumentException e) {
            // the platform has no such signal, or the JVM keeps it for itself (-Xrs): the default stays
            log.warn("cannot handle SIG{} here ({}); it keeps its default action", name, e.getMessage());
        }
    }
}
