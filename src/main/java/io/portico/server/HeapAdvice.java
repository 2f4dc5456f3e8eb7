package io.portico.server;

import io.portico.config.PorticoConfig;
import io.portico.ratelimit.RateLimits;
import java.util.Locale;

/**
 * How much heap a configuration needs at its limits: Portico's own, its rate-limit zones full, and
 * {@code limits.max-connections} open. The heap is best sized to this, not larger: a large heap that the process
 * touches made the tail latency several times worse on the benchmark machines (docs/benchmarks.md, "The heap sized
 * to need"); a smaller one fails when the zones fill (an address spray), long after the start. So the server warns
 * at start when the JVM's maximum is below it, and {@code portico check} says it.
 */
public record HeapAdvice(long zonesBytes, long connectionsBytes) {
    /** Portico itself with room for a young generation (its live data after a collection is about 7 MB). */
    static final long BASE_BYTES = 64L << 20;
    /** An open connection's heap, measured idle (docs/hardening.md: 2,943 B). */
    static final long BYTES_PER_CONNECTION = 3 * 1024;
    private static final long MIB = 1L << 20;

    public static HeapAdvice of(PorticoConfig config) {
        // max-connections = 0 is unbounded: nothing to count it by
        return new HeapAdvice(RateLimits.heapBytes(config),
                (long) config.limits().maxConnections() * BYTES_PER_CONNECTION);
    }

    public long totalBytes() {
        return BASE_BYTES + zonesBytes + connectionsBytes;
    }

    /** Whether a JVM whose maximum heap is {@code maxHeapBytes} can hold this configuration at its limits. */
    public boolean fits(long maxHeapBytes) {
        return maxHeapBytes >= totalBytes();
    }

    @Override
    public String toString() {
        return String.format(Locale.US, "about %,d MiB at the configured limits (%,d MiB for Portico, %,d MiB for the"
                + " rate-limit zones full, %,d MiB for limits.max-connections open)",
                mib(totalBytes()), mib(BASE_BYTES), mib(zonesBytes), mib(connectionsBytes));
    }

    private static long mib(long bytes) {
        return (bytes + MIB - 1) / MIB;
    }
}
