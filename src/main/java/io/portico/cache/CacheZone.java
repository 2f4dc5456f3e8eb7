package io.portico.cache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import io.netty.handler.codec.http.HttpHeaders;
import io.portico.config.CacheZoneConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One {@code caches} zone: responses by key in a Caffeine cache weighed in bytes (body, head, key and {@link
 * #ENTRY_OVERHEAD} each), so the zone stays within {@code max-size} however many keys there are; the misses in
 * flight ({@link Fill}) and the keys being refreshed in the background; and the counters the metrics read. Shared by
 * every event loop.
 */
final class CacheZone {
    /**
     * Bytes counted for each entry beyond its body, head and key: Caffeine's node, the record, the header map and
     * the arrays behind them, measured at roughly 200 bytes on a 64-bit JVM with compressed pointers.
     */
    static final int ENTRY_OVERHEAD = 256;
    /** Between a key and the values of the request headers its responses vary on: no key text contains it. */
    private static final char VARIANT = '\u0000';

    final String name;
    final CacheZoneConfig config;
    private final Cache<String, Stored> entries;
    private final Map<String, Fill> fills = new ConcurrentHashMap<>();
    private final Set<String> refreshing = ConcurrentHashMap.newKeySet();
    final LongAdder hits = new LongAdder();
    final LongAdder misses = new LongAdder();
    final LongAdder stale = new LongAdder();
    final LongAdder updating = new LongAdder();
    final LongAdder bypass = new LongAdder();
    final LongAdder coalesced = new LongAdder();
    final LongAdder evictions = new LongAdder();
    final LongAdder stored = new LongAdder();

    CacheZone(CacheZoneConfig config, Ticker ticker) {
        this.name = config.name();
        this.config = config;
        this.entries = Caffeine.newBuilder()
                .maximumWeight(config.maxSize())
                .weigher((String k, Stored v) -> (int) Math.min(Integer.MAX_VALUE,
                        2L * k.length() + v.weight() + ENTRY_OVERHEAD))
                .expireAfterAccess(config.inactive())
                .ticker(ticker)
                // Maintenance (eviction) on the writing thread: the weight is brought back under max-size by the
                // write that went over, not later by a pool thread, and the work per write stays small.
                .executor(Runnable::run)
                .removalListener((String k, Stored v, RemovalCause cause) -> {
                    if (cause == RemovalCause.SIZE) {
                        evictions.increment();
                    }
                })
                .build();
    }

    /** The key of the variant {@code request} picks under {@code base}: base itself unless its responses vary. */
    String variantKey(String base, HttpHeaders request) {
        Stored s = entries.getIfPresent(base);
        return s instanceof VaryNames v ? base + variant(v.names(), request) : base;
    }

    /** What {@code base} holds: a response, the names its responses vary on, or null. One lookup for a hit. */
    Stored stored(String base) {
        return entries.getIfPresent(base);
    }

    static String variant(List<String> names, HttpHeaders request) {
        StringBuilder b = new StringBuilder();
        for (String n : names) {
            b.append(VARIANT).append(n).append('=').append(String.join(",", request.getAll(n)));
        }
        return b.toString();
    }

    CachedResponse response(String key) {
        return entries.getIfPresent(key) instanceof CachedResponse r ? r : null;
    }

    /** Stores {@code response} as the variant of {@code request} under {@code base}; {@code vary} lower-case. */
    void store(String base, List<String> vary, HttpHeaders request, CachedResponse response) {
        stored.increment();
        if (vary.isEmpty()) {
            entries.put(base, response);
            return;
        }
        entries.put(base, new VaryNames(vary));
        entries.put(base + variant(vary, request), response);
    }

    /** The fill in flight for {@code key}, or {@code fill} when there was none (the caller leads it). */
    Fill fillOrLead(String key, Fill fill) {
        Fill existing = fills.putIfAbsent(key, fill);
        return existing != null ? existing : fill;
    }

    void fillDone(String key, Fill fill) {
        fills.remove(key, fill);
    }

    /** True for the one caller that may refresh {@code key} in the background now. */
    boolean startRefresh(String key) {
        return refreshing.add(key);
    }

    void refreshDone(String key) {
        refreshing.remove(key);
    }

    /** Removes {@code key} and its variants; the number of entries removed. */
    int purge(String key) {
        int before = size();
        entries.asMap().keySet().removeIf(k -> k.equals(key) || k.startsWith(key + VARIANT));
        return before - size();
    }

    /** Removes every key that starts with {@code prefix}; the number of entries removed. */
    int purgePrefix(String prefix) {
        int before = size();
        entries.asMap().keySet().removeIf(k -> k.startsWith(prefix));
        return before - size();
    }

    private int size() {
        return entries.asMap().size();
    }

    /** The weight of what the zone holds now, in bytes. */
    long weightedSize() {
        entries.cleanUp();
        return entries.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    long entryCount() {
        return entries.estimatedSize();
    }
}
