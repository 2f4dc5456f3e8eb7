package io.portico.staticfile;

import com.github.benmanes.caffeine.cache.Ticker;
import io.portico.config.LocationConfig;
import io.portico.config.StaticConfig;
import io.portico.config.TargetConfig;
import io.portico.exchange.Responder;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Static files for a server: one open-file cache and one small executor for file system work, shared by every
 * static location, each of which gets its {@link #responder}. Close it when the server stops.
 */
public final class StaticFiles implements AutoCloseable {
    private static final int THREADS = 4;

    private final FileCache cache;
    private final MediaTypes mediaTypes;
    private final Clock clock;
    private final ExecutorService owned;

    private StaticFiles(StaticConfig config, java.util.concurrent.Executor executor, ExecutorService owned,
            Ticker ticker, Clock clock) {
        this.mediaTypes = new MediaTypes(config.mediaTypes());
        this.cache = new FileCache(config, mediaTypes, executor, ticker);
        this.clock = clock;
        this.owned = owned;
    }

    public static StaticFiles create(StaticConfig config) {
        ExecutorService executor = Executors.newFixedThreadPool(THREADS, daemonThreads());
        return new StaticFiles(config, executor, executor, Ticker.systemTicker(), Clock.systemUTC());
    }

    /** For tests: file system work on {@code executor} (not shut down by close), time from the given sources. */
    static StaticFiles create(StaticConfig config, java.util.concurrent.Executor executor, Ticker ticker, Clock clock) {
        return new StaticFiles(config, executor, null, ticker, clock);
    }

    /**
     * The responder of a static location. {@code namedUpstreams} resolves a try-files {@code @name} fallback to the
     * responder of that upstream; the request is handed over with {@code open(client, request)}.
     */
    public Responder responder(
            LocationConfig location, TargetConfig.Static target, Function<String, Responder> namedUpstreams) {
        CachingHeaders caching = new CachingHeaders(target.expires(), target.cacheControl(), clock);
        return new StaticResponder(location, target, cache, mediaTypes, caching, namedUpstreams);
    }

    /** The in-memory file cache's counters, for the metrics. */
    public CacheFigures cacheFigures() {
        return cache.figures();
    }

    @Override
    public void close() {
        cache.close();
        if (owned != null) {
            owned.shutdown();
        }
    }

    private static ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, "portico-static-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
