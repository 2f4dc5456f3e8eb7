package io.portico.cli;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One full collection when a command has built what it keeps for its whole run (configuration, caches, event loops,
 * listeners), before it serves or measures.
 *
 * <p>Why: what a JVM allocates while starting (about 3 MB for {@code serve} with the bundled configuration) stays
 * live in the young generation, and every young collection copies it from survivor space to survivor space until
 * it is old enough to be promoted: 15 collections with G1's default threshold, one every 1.5-3 s under load, so the
 * first 20-45 s of a server's life, which is also all a short benchmark sees. Measured (`wrk -t1 -c50` on a static
 * file, G1, 256 MiB heap, {@code -Xlog:gc*,gc+age=trace}): 4.9 MB copied per young collection and 8-12 ms of
 * evacuation each without this, 1.9 MB and 3-6 ms with it; the 1.9 MB left is made by the first requests (class
 * initialisation), which no collection at start can reach. It costs 35-65 ms at start, while connections wait in
 * the listen backlog. Not done on a reload, where it would pause the traffic being served.
 * {@code -XX:+DisableExplicitGC} turns it off.
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
