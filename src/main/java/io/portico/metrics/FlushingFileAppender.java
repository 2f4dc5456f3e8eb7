package io.portico.metrics;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A buffered file appender that also writes out its buffer every second, like nginx's {@code access_log ...
 * buffer=... flush=1s}: busy servers write in 8 KiB blocks, and a quiet one still shows a request in the file
 * within a second instead of when the buffer happens to fill.
 */
final class FlushingFileAppender extends FileAppender<ILoggingEvent> {
    private ScheduledExecutorService timer;

    @Override
    public void start() {
        setImmediateFlush(false);
        super.start();
        timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = new Thread(task, "access-flush");
            t.setDaemon(true);
            return t;
        });
        timer.scheduleWithFixedDelay(this::flush, 1, 1, TimeUnit.SECONDS);
    }

    /** Writes out what the buffer holds, under the lock the appender writes with. */
    void flush() {
        streamWriteLock.lock();
        try {
            OutputStream out = getOutputStream();
            if (out != null && isStarted()) {
                out.flush();
            }
        } catch (IOException e) {
            addError("cannot flush the access log", e);
        } finally {
            streamWriteLock.unlock();
        }
    }

    @Override
    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
        }
        super.stop();
    }
}
