package io.portico.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** The lines a logger (and its children) writes while open, from INFO up; for tests of the error log. */
public final class LogCapture implements AutoCloseable {
    private final Logger logger;
    private final Level level;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public LogCapture(String name) {
        logger = (Logger) LoggerFactory.getLogger(name);
        level = logger.getLevel();
        logger.setLevel(Level.INFO);
        appender.start();
        logger.addAppender(appender);
    }

    /** Each line as "LEVEL message", in order. */
    public List<String> lines() {
        synchronized (appender.list) {
            return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).toList();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(level);
    }
}
