package io.portico.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU used by the client during the measured part of a run: by each event-loop thread (a loop near 100% busy means
 * the client, not the server, set the pace: compare mode then refuses to print ratios) and by the whole process
 * (what the client costs per request, comparable with another load generator's).
 */
final class LoopCpu {

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    private final Map<Long, Long> startCpu = new HashMap<>();
    private long startNs;
    private long startProcessCpu = -1;

    void begin(List<LoopDriver> drivers) {
        startNs = System.nanoTime();
        startProcessCpu = processCpu();
        startCpu.clear();
        for (LoopDriver d : drivers) {
            startCpu.put(d.threadId(), cpu(d.threadId()));
        }
    }

    /** The busiest loop's CPU share of wall time since {@link #begin} (0..1), or -1 when not measurable. */
    double busiest(List<LoopDriver> drivers, long endNs) {
        double wall = endNs - startNs;
        if (wall <= 0 || !threads.isThreadCpuTimeSupported()) {
            return -1;
        }
        double max = 0;
        for (LoopDriver d : drivers) {
            long now = cpu(d.threadId());
            Long before = startCpu.get(d.threadId());
            if (now < 0 || before == null || before < 0) {
                continue;
            }
            max = Math.max(max, (now - before) / wall);
        }
        return Math.min(1, max);
    }

    /** CPU seconds of the whole process since {@link #begin}, or -1 when the JVM does not tell. */
    double processSeconds() {
        long now = processCpu();
        return now < 0 || startProcessCpu < 0 ? -1 : (now - startProcessCpu) / 1e9;
    }

    private long processCpu() {
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    private long cpu(long threadId) {
        return threadId < 0 ? -1 : threads.getThreadCpuTime(threadId);
    }
}
