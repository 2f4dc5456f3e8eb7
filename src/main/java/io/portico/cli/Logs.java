package io.portico.cli;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

/** The end of a command's logging. */
final class Logs {
    private Logs() {}

    /**
     * Stops logback, which makes its asynchronous appenders write out what they still hold (the bundled error log is
     * one). Called last: by serve's shutdown hook once the drain, which logs, is over, and by {@code main} before
     * the JVM exits. Not logback's own shutdown hook: it would run beside serve's and drop the drain's lines.
     */
    static void flush() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.stop();
        }
    }
}
