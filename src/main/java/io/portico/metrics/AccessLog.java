package io.portico.metrics;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AsyncAppenderBase;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import io.portico.config.AccessLogConfig;
import org.slf4j.LoggerFactory;

/**
 * The access log: lines handed over from the event loops to an asynchronous appender, which writes them on its
 * own thread. When the queue is full a line is dropped rather than an event loop blocked (and the drop is the
 * appender's to report); the queue is large enough that this takes a disk that has stopped.
 */
public final class AccessLog implements AutoCloseable {
    private static final String LOGGER = "portico.access";
    private final Logger logger;
    private final AsyncAppenderBase<ILoggingEvent> async;

    private AccessLog(Logger logger, AsyncAppenderBase<ILoggingEvent> async) {
        this.logger = logger;
        this.async = async;
    }

    public static AccessLog create(AccessLogConfig config) {
        if (config.kind() == AccessLogConfig.Kind.OFF
                || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return new AccessLog(null, null);
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%msg%n");
        encoder.start();
        OutputStreamAppender<ILoggingEvent> sink;
        if (config.kind() == AccessLogConfig.Kind.FILE) {
            FileAppender<ILoggingEvent> file = new FlushingFileAppender();
            file.setFile(config.file().orElseThrow().toString());
            file.setAppend(true);
            sink = file;
        } else {
            sink = new ConsoleAppender<>();
        }
        sink.setContext(context);
        sink.setName("access-sink");
        sink.setEncoder(encoder);
        if (config.kind() != AccessLogConfig.Kind.FILE) {
            sink.setImmediateFlush(true); // a console shows each line at once; a file is flushed every second
        }
        sink.start();
        AsyncAppenderBase<ILoggingEvent> async = new AsyncAppenderBase<>();
        async.setContext(context);
        async.setName("access-async");
        async.setQueueSize(65536);
        async.setDiscardingThreshold(0);
        async.setNeverBlock(true);
        async.addAppender(sink);
        async.start();
        Logger logger = context.getLogger(LOGGER);
        logger.detachAndStopAllAppenders();
        logger.setAdditive(false);
        // Its own level: a logback configuration that quiets the root logger must not silence the access log.
        logger.setLevel(Level.INFO);
        logger.addAppender(async);
        return new AccessLog(logger, async);
    }

    public boolean enabled() {
        return logger != null;
    }

    public void log(String line) {
        if (logger != null) {
            logger.info(line);
        }
    }

    @Override
    public void close() {
        if (async != null) {
            logger.detachAppender(async);
            async.stop();
        }
    }
}
