package io.portico.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One full collection when a command has built what it keeps for its whole run (configuration, caches, event loops,
 * listeners), before it serves or measures.
 *
 * <p>Why: what a JVM allocates while starting (about 5 MB for {@code serve} with the bundled configuration) stays
 * live in the young generation, and every young collection copies it from survivor space to survivor space until
 * it is old enough to be promoted: 15 collections with G1's default threshold. Under load that made the first
 * fifteen young pauses 7-14 ms each, where they are 1-3 ms once those objects are old (measured: `wrk -t1 -c50`
 * on a static file, G1, 256 MiB heap, `-Xlog:gc*`), at one collection every 1.5-3 s: the first 20-45 s of a
 * server's life, which is also all a short benchmark sees. A full collection moves them to the old generation at
 * once; it costs tens of milliseconds at start, while connections wait in the listen backlog. Not done on a reload,
 * where it would pause the traffic being served. {@code -XX:+DisableExplicitGC} turns it off.
 */
final class StartupHeap {
    private static final Logger log = LoggerFactory.getLogger(StartupHeap.class);

    private StartupHeap() {}

    static void settle() {
        long started = System.nanoTime();
        System.gc();
        log.debug("start-up heap settled in {} ms", (System.nanoTime() - started) / 1_000_000);
    }
}
