package io.portico.server;

import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * The log of connections a PROXY protocol listener closed: one warning at most every ten seconds per listener, with
 * the count of those since, so a scan of the port or a misconfigured balancer cannot flood the log (nginx logs each
 * one). Shared by the listener's connections, on every event loop.
 */
final class ProxyProtocolRefusals {
    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private final Logger log;
    private final AtomicLong nextNanos = new AtomicLong(System.nanoTime());
    private final AtomicInteger unlogged = new AtomicInteger();

    ProxyProtocolRefusals(Logger log) {
        this.log = log;
    }

    void note(SocketAddress peer, String why) {
        long now = System.nanoTime();
        long next = nextNanos.get();
        if (now - next < 0 || !nextNanos.compareAndSet(next, now + INTERVAL_NANOS)) {
            unlogged.incrementAndGet();
            return;
        }
        int more = unlogged.getAndSet(0);
        log.warn("PROXY protocol: closed the connection from {}: {}{}", peer, why,
                more == 0 ? "" : " (and " + more + " more closed since the last such line)");
    }
}
