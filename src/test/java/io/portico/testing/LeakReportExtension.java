package io.portico.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Turns a Netty leak report into a test failure. Registered for every test class by JUnit's extension
 * autodetection; it installs, before any buffer class loads, a leak-detector factory whose detectors record what
 * they report. After each test class it collects garbage, provokes the detectors to look at their queues, and
 * fails the class if anything leaked. The JVM runs with {@code -Dio.netty.leakDetection.level=paranoid}.
 */
public final class LeakReportExtension implements AfterAllCallback {
    private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

    static {
        ResourceLeakDetectorFactory.setResourceLeakDetectorFactory(new RecordingFactory());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (int round = 0; round < 3; round++) {
            System.gc();
            System.runFinalization();
            // Detectors look at their reference queues only when they track a new object.
            for (int i = 0; i < 64; i++) {
                ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(16);
                ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(16);
                a.release();
                b.release();
            }
        }
        List<String> found = new ArrayList<>();
        String leak;
        while ((leak = LEAKS.poll()) != null) {
            found.add(leak);
        }
        if (!found.isEmpty()) {
            throw new AssertionError("Netty reported " + found.size() + " leak(s) during "
                    + context.getDisplayName() + ":\n" + String.join("\n\n", found));
        }
    }

    private static final class RecordingFactory extends ResourceLeakDetectorFactory {
        @Override
        @SuppressWarnings("deprecation")
        public <T> ResourceLeakDetector<T> newResourceLeakDetector(Class<T> resource, int samplingInterval,
                long maxActive) {
            return new RecordingDetector<>(resource, samplingInterval);
        }
    }

    private static final class RecordingDetector<T> extends ResourceLeakDetector<T> {
        RecordingDetector(Class<T> resource, int samplingInterval) {
            super(resource, samplingInterval);
        }

        @Override
        protected void reportTracedLeak(String resourceType, String records) {
            LEAKS.add(resourceType + " leaked:" + records);
            super.reportTracedLeak(resourceType, records);
        }

        @Override
        protected void reportUntracedLeak(String resourceType) {
            LEAKS.add(resourceType + " leaked (no records)");
            super.reportUntracedLeak(resourceType);
        }
    }
}
