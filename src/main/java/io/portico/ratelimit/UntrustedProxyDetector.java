package io.portico.ratelimit;

import io.portico.config.Cidr;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a load balancer missing from {@code trusted-proxies}, at run time, for one zone keyed by the client
 * address: when, over a window of {@link #WINDOW_NANOS}, one peer sent at least {@link #MIN_REQUESTS} of the
 * zone's requests and at least half of them, all carrying {@code X-Forwarded-For} that Portico does not believe
 * (the peer is not trusted), every client behind it is being limited as one. One WARN names the address and the
 * {@code trusted-proxies} line to write; once per address for the life of the process, whichever zone saw it.
 *
 * <p>Only such requests are counted, and a correct configuration sends none (clients do not send
 * X-Forwarded-For; proxies that do are trusted): the hot path pays a header lookup on requests from untrusted
 * peers, and a {@link LongAdder} increment for the rare one that carries the header. The zone's total comes from
 * its own counters, read once per window. The window closes on the first such request after it has run its
 * length (so no timer), and whichever thread closes it decides; a count racing with the reset may be lost, which
 * a detector of "most of the traffic" can afford.
 */
final class UntrustedProxyDetector {
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    static final int MIN_REQUESTS = 100;
    /** Peers counted per window at most: a spray of addresses cannot grow the map. */
    private static final int MAX_SUSPECTS = 256;
    /** Addresses warned about at most, over all zones. */
    static final int MAX_WARNED = 1024;
    private static final long UNSET = Long.MIN_VALUE;
    private static final Logger log = LoggerFactory.getLogger(UntrustedProxyDetector.class);

    private final String zone;
    private final ZoneCounters counters;
    private final List<Cidr> trusted;
    private final Set<InetAddress> warned;
    private final ConcurrentHashMap<InetAddress, LongAdder> suspects = new ConcurrentHashMap<>();
    private final AtomicLong windowStart = new AtomicLong(UNSET);
    /** The zone's decisions when the window started. */
    private volatile long decidedBefore;

    /** @param warned the addresses already warned about, shared by every zone's detector */
    UntrustedProxyDetector(String zone, ZoneCounters counters, List<Cidr> trusted, Set<InetAddress> warned) {
        this.zone = zone;
        this.counters = counters;
        this.trusted = trusted;
        this.warned = warned;
    }

    /** A request of this zone from {@code peer}, not a trusted proxy, with X-Forwarded-For; {@code now}: nanos. */
    void untrustedForwarder(InetAddress peer, long now) {
        LongAdder count = suspects.get(peer);
        if (count == null && suspects.size() < MAX_SUSPECTS) {
            count = suspects.computeIfAbsent(peer, p -> new LongAdder());
        }
        if (count != null) {
            count.increment();
        }
        long start = windowStart.get();
        if (start == UNSET) {
            if (windowStart.compareAndSet(UNSET, now)) {
                decidedBefore = counters.decided();
            }
        } else if (now - start >= WINDOW_NANOS && windowStart.compareAndSet(start, now)) {
            closeWindow(now - start);
        }
    }

    private void closeWindow(long lengthNanos) {
        long decided = counters.decided();
        long total = decided - decidedBefore;
        decidedBefore = decided;
        suspects.forEach((peer, count) -> {
            long n = count.sum();
            if (n >= MIN_REQUESTS && 2 * n >= total && warned.size() < MAX_WARNED && warned.add(peer)) {
                warn(peer, n, total, lengthNanos);
            }
        });
        suspects.clear();
    }

    private void warn(InetAddress peer, long n, long total, long lengthNanos) {
        String address = peer.getHostAddress();
        String line = Stream.concat(trusted.stream().map(Cidr::toString), Stream.of(address))
                .map(a -> '"' + a + '"')
                .collect(Collectors.joining(", ", "trusted-proxies = [", "]"));
        log.warn("rate-limit zone {}: {} of its {} requests in the last {} s came from {} with X-Forwarded-For,"
                        + " but {} is not in trusted-proxies, so every client behind it is limited as one. If it is"
                        + " your load balancer or proxy, trust it: {}",
                zone, n, Math.max(n, total), TimeUnit.NANOSECONDS.toSeconds(lengthNanos), address, address, line);
    }
}
