package io.portico.demo;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Turns Netty's leak reports (PARANOID in surefire) into a failure of the test class that ran while they happened,
 * instead of a log line nobody reads. Reports come when a leaked buffer is collected, so the check forces a few
 * collections and allocations (which is when the detector looks) before it reads what was logged.
 */
final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {

    private final ListAppender<ILoggingEvent> reports = new ListAppender<>();

    private static Logger detectorLogger() {
        return (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        reports.start();
        detectorLogger().addAppender(reports);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (int round = 0; round < 5; round++) {
            System.gc();
            System.runFinalization();
            for (int i = 0; i < 64; i++) {
                ByteBuf probe = PooledByteBufAllocator.DEFAULT.heapBuffer(16);
                probe.release();
            }
        }
        detectorLogger().detachAppender(reports);
        List<String> leaks = reports.list.stream()
                .filter(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
                .map(ILoggingEvent::getFormattedMessage)
                .collect(Collectors.toList());
        assertThat(leaks).as("Netty leak reports").isEmpty();
    }
}
