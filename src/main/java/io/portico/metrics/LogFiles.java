package io.portico.metrics;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.AsyncAppenderBase;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.rolling.RollingFileAppender;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * Reopens every log file by its name, nginx's {@code USR1}: after logrotate renamed {@code access.log}, the next
 * lines go to a new {@code access.log}. Covers the access log and any file appender of the logback configuration
 * (the error log when it is a file); a rolling appender rotates itself and is left alone.
 *
 * <p>Safe against the writer threads: {@link FileAppender#openFile} swaps the stream under the appender's own write
 * lock, and closing the old stream writes out what its buffer held into the renamed file, so no line is lost
 * (events still queued in an asynchronous appender go to the new file). It opens files: call it off the event loops.
 */
public final class LogFiles {
    private LogFiles() {}

    /** Reopens each file appender; returns the files reopened and those that could not be (the old one stays). */
    public static Result reopen() {
        List<String> reopened = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return new Result(reopened, failed);
        }
        Set<Appender<ILoggingEvent>> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Logger logger : context.getLoggerList()) {
            for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext(); ) {
                collect(it.next(), seen);
            }
        }
        for (Appender<ILoggingEvent> a : seen) {
            if (a instanceof FileAppender<ILoggingEvent> file && !(a instanceof RollingFileAppender)
                    && file.isStarted() && file.getFile() != null) {
                try {
                    file.openFile(file.getFile());
                    reopened.add(file.getFile());
                } catch (IOException e) {
                    failed.add(file.getFile() + ": " + e.getMessage());
                }
            }
        }
        return new Result(List.copyOf(reopened), List.copyOf(failed));
    }

    private static void collect(Appender<ILoggingEvent> appender, Set<Appender<ILoggingEvent>> seen) {
        if (!seen.add(appender)) {
            return;
        }
        if (appender instanceof AsyncAppenderBase<ILoggingEvent> async) {
            for (Iterator<Appender<ILoggingEvent>> it = async.iteratorForAppenders(); it.hasNext(); ) {
                collect(it.next(), seen);
            }
        }
    }

    /** What {@link #reopen} did: file names, and failures as "name: reason". */
    public record Result(List<String> reopened, List<String> failed) {}
}
