package io.portico.server;

import io.portico.config.CacheZoneConfig;
import io.portico.config.PorticoConfig;
import io.portico.ratelimit.RateLimits;
import java.util.Locale;

/**
 * How much heap a configuration needs at its limits: Portico's own, its locations, its rate-limit zones full, its
 * response caches full, and {@code limits.max-connections} open. The heap is best sized to this, not larger: a large heap that the process
 * touches made the tail latency several times worse on the benchmark machines (docs/benchmarks.md, "The heap sized
 * to need"); a smaller one fails when the zones fill (an address spray), long after the start. So the server warns
 * at start when the JVM's maximum is below it, and {@code portico check} says it.
 */
public record HeapAdvice(long locationsBytes, long zonesBytes, long cachesBytes, long connectionsBytes) {
    /** Portico itself with room for a young generation (its live data after a collection is about 7 MB). */
    static final long BASE_BYTES = 64L << 20;
    /** An open connection's heap, measured idle (docs/hardening.md: 2,943 B). */
    static final long BYTES_PER_CONNECTION = 3 * 1024;
    /**
     * A location's heap (its config, router entry, responder, rate-limit entry and Prometheus series), measured live
     * by a heap histogram of 10,000 {@code return} locations: 2.9 KB each (server.LocationCostTest bounds it).
     */
    static final long BYTES_PER_LOCATION = 4 * 1024;
    private static final long MIB = 1L << 20;

    public static HeapAdvice of(PorticoConfig config) {
        // max-connections = 0 is unbounded: nothing to count it by
        return new HeapAdvice(config.allLocations().size() * BYTES_PER_LOCATION, RateLimits.heapBytes(config),
                cachesBytes(config), (long) config.limits().maxConnections() * BYTES_PER_CONNECTION);
    }

    /**
     * A response cache keeps its bodies and heads on the heap, up to its {@code max-size} as its weigher counts them
     * (body, head, key and a fixed overhead per entry). The static file cache is not counted: its bytes are direct
     * buffers, outside the heap.
     */
    private static long cachesBytes(PorticoConfig config) {
        return config.caches().values().stream().mapToLong(CacheZoneConfig::maxSize).sum();
    }

    public long totalBytes() {
        return BASE_BYTES + locationsBytes + zonesBytes + cachesBytes + connectionsBytes;
    }

    /** Whether a JVM whose maximum heap is {@code maxHeapBytes} can hold this configuration at its limits. */
    public boolean fits(long maxHeapBytes) {
        return maxHeapBytes >= totalBytes();
    }

    @Override
    public String toString() {
        // the locations are named once they need a MiB (a few hundred of them); fewer fit in Portico's own
        String locations = locationsBytes < MIB ? ""
                : String.format(Locale.US, ", %,d MiB for the locations", mib(locationsBytes));
        // named when there are any, as most configurations have none
        String caches = cachesBytes == 0 ? ""
                : String.format(Locale.US, ", %,d MiB for the response caches full", mib(cachesBytes));
        return String.format(Locale.US, "about %,d MiB at the configured limits (%,d MiB for Portico%s, %,d MiB for"
                + " the rate-limit zones full%s, %,d MiB for limits.max-connections open)",
                mib(totalBytes()), mib(BASE_BYTES), locations, mib(zonesBytes), caches, mib(connectionsBytes));
    }

    private static long mib(long bytes) {
        return (bytes + MIB - 1) / MIB;
    }
}
