package io.portico.bench;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Counts the client JVM's stop-the-world collections from {@link #begin} to {@link #close}, as {@link ClientPauses}.
 * Listens to the collectors whose notifications are pauses: every collector of Serial, Parallel and G1, and the
 * "Pauses" one of ZGC and Shenandoah; their "Cycles" (and G1's "Concurrent GC") beans report concurrent work,
 * which does not stop the client. Notifications arrive on the JVM's service thread, so the counters are atomic.
 */
final class ClientPauseWatch implements NotificationListener, AutoCloseable {

    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final AtomicLong count = new AtomicLong();
    private final AtomicLong totalMs = new AtomicLong();
    private final LongAccumulator longestMs = new LongAccumulator(Math::max, 0);
    private volatile boolean counting;

    ClientPauseWatch() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter && stopsTheWorld(gc.getName())) {
                emitter.addNotificationListener(this, null, null);
                emitters.add(emitter);
            }
        }
    }

    static boolean stopsTheWorld(String collector) {
        return !collector.contains("Cycles") && !collector.contains("Concurrent");
    }

    /** Starts counting from zero (the measured part begins). */
    void begin() {
        count.set(0);
        totalMs.set(0);
        longestMs.reset();
        counting = true;
    }

    @Override
    public void handleNotification(Notification notification, Object handback) {
        if (!counting || !GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
            return;
        }
        long ms = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData()).getGcInfo()
                .getDuration();
        count.incrementAndGet();
        totalMs.addAndGet(ms);
        longestMs.accumulate(ms);
    }

    /** The pauses counted since {@link #begin}; unknown when no collector sends notifications. */
    ClientPauses pauses() {
        return emitters.isEmpty() ? ClientPauses.UNKNOWN
                : new ClientPauses(count.get(), totalMs.get(), longestMs.get());
    }

    @Override
    public void close() {
        counting = false;
        for (NotificationEmitter emitter : emitters) {
            try {
                emitter.removeNotificationListener(this);
            } catch (ListenerNotFoundException e) {
                // not registered: nothing to remove
            }
        }
    }
}
