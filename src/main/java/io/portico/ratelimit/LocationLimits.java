package io.portico.ratelimit;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.portico.config.Cidr;
import io.portico.exchange.ClientExchange;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The zones one location uses, in the order it names them. A request passes only if every zone lets it; a zone
 * that rejects it makes the zones before it give their charge back, so a rejection charges none of them. The
 * request waits for the longest delay any zone asks for (nginx does the same).
 */
final class LocationLimits {

    /**
     * A limit-conn slot held by the exchange in progress: in Redis ({@code slot}), in this process's count
     * ({@code local}), or neither (a shared zone's on-store-failure = allow).
     */
    record Lease(ConnZone zone, ClientKey key, RedisConnStore.Slot slot, boolean local) {
        void release() {
            if (slot != null) {
                zone.shared.release(slot);
            } else if (local) {
                zone.release(key);
            }
        }
    }

    /** What {@link #acquireConnectionsLater} got: the leases taken, or the zone that was full (and none). */
    record Acquired(List<Lease> leases, ConnZone full) {}

    private final RateZone[] rate;
    private final ConnZone[] conn;
    private final List<Cidr> unlimited;
    /** Whether any zone sends RateLimit fields on passing responses: only then is a key's state read back. */
    private final boolean headersOnPass;
    private final boolean decidesLater;
    private final boolean sharesConnections;
    /** The detectors of this location's zones keyed by the client address. */
    private final UntrustedProxyDetector[] detectors;

    LocationLimits(List<RateZone> rate, List<ConnZone> conn, List<Cidr> unlimited,
            List<UntrustedProxyDetector> detectors) {
        this.detectors = detectors.toArray(UntrustedProxyDetector[]::new);
        this.rate = rate.toArray(RateZone[]::new);
        this.conn = conn.toArray(ConnZone[]::new);
        this.unlimited = unlimited;
        this.headersOnPass = rate.stream().anyMatch(RateZone::headersOnPass);
        this.decidesLater = rate.stream().anyMatch(zone -> zone.shared != null);
        this.sharesConnections = conn.stream().anyMatch(zone -> zone.shared != null);
    }

    /** Whether a zone here is keyed by the client address, so that an untrusted proxy would be one client. */
    boolean watchesForwarders() {
        return detectors.length > 0;
    }

    /** A request from {@code peer}, not trusted, that carries X-Forwarded-For: see {@link UntrustedProxyDetector}. */
    void untrustedForwarder(InetAddress peer, long now) {
        for (UntrustedProxyDetector detector : detectors) {
            detector.untrustedForwarder(peer, now);
        }
    }

    boolean limitsNothing() {
        return rate.length == 0 && conn.length == 0;
    }

    /** Whether the client is in {@code allowUnlimited}, which no zone ever limits. */
    boolean unlimited(ClientExchange client) {
        InetSocketAddress socket = client.clientAddress();
        return Cidr.anyContains(unlimited, socket == null ? null : socket.getAddress());
    }

    /** {@code memos}: the connection's, by zone index ({@link RateZone#index}); filled in as zones are used. */
    RateVerdict checkRate(ClientExchange client, HttpRequest request, long now, SlotMemo[] memos) {
        if (rate.length == 0) {
            return RateVerdict.UNLIMITED;
        }
        if (rate.length == 1 && !headersOnPass) {
            return checkOne(rate[0], client, request, now, memo(memos, rate[0]));
        }
        ClientKey[] keys = new ClientKey[rate.length];
        long[] verdicts = new long[rate.length];
        for (int i = 0; i < rate.length; i++) {
            RateZone zone = rate[i];
            keys[i] = zone.key.of(client, request);
            if (keys[i] == null) {
                continue;
            }
            verdicts[i] = zone.store.take(keys[i], now, memo(memos, zone));
            RateVerdict rejected = rejection(i, keys, verdicts, null, now, memos);
            if (rejected != null) {
                return rejected;
            }
        }
        return passed(keys, verdicts, null, now);
    }

    /** Whether a zone of this location keeps its state in a shared store: then {@link #checkLater} decides. */
    boolean decidesLater() {
        return decidesLater;
    }

    /**
     * {@link #checkRate} for a location with a shared zone: the zones in order, each shared one a round trip, so
     * the verdict completes on the store's thread. Keys are read here, on the loop; local zones are then charged
     * without the connection's memos (the rest may run on the store's thread, and memos are the loop's).
     */
    CompletableFuture<RateVerdict> checkLater(ClientExchange client, HttpRequest request, NanoClock clock) {
        ClientKey[] keys = new ClientKey[rate.length];
        for (int i = 0; i < rate.length; i++) {
            keys[i] = rate[i].key.of(client, request);
        }
        return checkFrom(0, keys, new long[rate.length], new boolean[rate.length], clock,
                client.channel().eventLoop());
    }

    /** {@code loop}: the client channel's, whose timer bounds each shared zone's decision (store-timeout). */
    private CompletableFuture<RateVerdict> checkFrom(int first, ClientKey[] keys, long[] verdicts,
            boolean[] storeFailed, NanoClock clock, ScheduledExecutorService loop) {
        for (int i = first; i < rate.length; i++) {
            RateZone zone = rate[i];
            if (keys[i] == null) {
                continue;
            }
            if (zone.shared != null) {
                int at = i;
                return zone.shared.take(keys[i], loop).thenCompose(answer -> {
                    verdicts[at] = answer.verdict();
                    storeFailed[at] = answer.storeFailed();
                    RateVerdict rejected = rejection(at, keys, verdicts, storeFailed, clock.nanoTime(), null);
                    return rejected != null ? CompletableFuture.completedFuture(rejected)
                            : checkFrom(at + 1, keys, verdicts, storeFailed, clock, loop);
                });
            }
            long now = clock.nanoTime();
            verdicts[i] = zone.store.take(keys[i], now);
            RateVerdict rejected = rejection(i, keys, verdicts, storeFailed, now, null);
            if (rejected != null) {
                return CompletableFuture.completedFuture(rejected);
            }
        }
        return CompletableFuture.completedFuture(passed(keys, verdicts, storeFailed, clock.nanoTime()));
    }

    /**
     * The verdict when zone {@code i} rejected the request (the zones before it give their charge back), or null
     * when it did not. {@code memos} null: charges were taken without them.
     */
    private RateVerdict rejection(int i, ClientKey[] keys, long[] verdicts, boolean[] storeFailed, long now,
            SlotMemo[] memos) {
        RateZone zone = rate[i];
        if (verdicts[i] >= 0 || zone.config.dryRun()) {
            return null;
        }
        for (int j = 0; j < i; j++) {
            if (keys[j] == null || verdicts[j] < 0) {
                continue;
            }
            RateZone before = rate[j];
            if (before.shared != null) {
                before.shared.giveBack(keys[j],
                        new SharedZoneStore.Answer(verdicts[j], storeFailed != null && storeFailed[j]));
            } else if (memos == null) {
                before.store.giveBack(keys[j], now);
            } else {
                before.store.giveBack(keys[j], now, memos[before.index]);
            }
        }
        zone.counters.rejected.increment();
        boolean failed = storeFailed != null && storeFailed[i];
        return new RateVerdict(0, zone, -verdicts[i], failed ? zone.noteStoreFailed : zone.noteRejected, null);
    }

    /** The verdict of a request no zone rejected: the longest delay any zone asks for, and every zone's note. */
    private RateVerdict passed(ClientKey[] keys, long[] verdicts, boolean[] storeFailed, long now) {
        long delay = 0;
        StringBuilder note = null;
        for (int i = 0; i < rate.length; i++) {
            if (keys[i] == null) {
                continue;
            }
            String said = count(rate[i], verdicts[i]);
            if (storeFailed != null && storeFailed[i]) {
                said = rate[i].noteStoreFailed;
            }
            if (!rate[i].config.dryRun()) {
                delay = Math.max(delay, verdicts[i]);
            }
            note = note == null ? new StringBuilder(said) : note.append(' ').append(said);
        }
        return new RateVerdict(delay, null, 0, note == null ? null : note.toString(),
                headersOnPass ? passHeaders(keys, now) : null);
    }

    /**
     * The common case, one zone and no RateLimit fields on passes, without the arrays and the note builder of
     * several zones: a request that passes at once allocates only its key probe.
     */
    private static RateVerdict checkOne(RateZone zone, ClientExchange client, HttpRequest request, long now,
            SlotMemo memo) {
        ClientKey key = zone.key.of(client, request);
        if (key == null) {
            return RateVerdict.UNLIMITED;
        }
        long verdict = zone.store.take(key, now, memo);
        if (verdict == 0) {
            zone.counters.passed.increment();
            return zone.passedAtOnce;
        }
        if (verdict < 0 && !zone.config.dryRun()) {
            zone.counters.rejected.increment();
            return new RateVerdict(0, zone, -verdict, zone.noteRejected, null);
        }
        String note = count(zone, verdict);
        return new RateVerdict(zone.config.dryRun() ? 0 : verdict, null, 0, note, null);
    }

    private static SlotMemo memo(SlotMemo[] memos, RateZone zone) {
        SlotMemo memo = memos[zone.index];
        return memo != null ? memo : (memos[zone.index] = new SlotMemo());
    }

    private HttpHeaders passHeaders(ClientKey[] keys, long now) {
        HttpHeaders headers = null;
        for (int i = 0; i < rate.length; i++) {
            if (keys[i] != null && rate[i].headersOnPass()) {
                headers = headers == null ? new DefaultHttpHeaders(false) : headers;
                rate[i].addPassHeaders(headers, rate[i].store.backlogNanos(keys[i], now));
            }
        }
        return headers;
    }

    private static String count(RateZone zone, long verdict) {
        ZoneCounters counters = zone.counters;
        if (verdict == 0) {
            counters.passed.increment();
            return zone.notePassed;
        }
        (verdict > 0 ? counters.delayed : counters.rejected).increment();
        if (zone.config.dryRun()) {
            counters.dryRun.increment();
            return zone.noteDryRun;
        }
        return zone.noteDelayed;
    }

    /**
     * Takes a slot in every limit-conn zone into {@code leases}; on the first full zone, gives back the slots taken
     * and returns that zone. Null means the request may proceed.
     */
    ConnZone acquireConnections(ClientExchange client, HttpRequest request, List<Lease> leases) {
        int before = leases.size();
        for (ConnZone zone : conn) {
            ClientKey key = zone.key.of(client, request);
            if (key == null) {
                continue;
            }
            if (!zone.tryAcquire(key)) {
                while (leases.size() > before) {
                    leases.remove(leases.size() - 1).release();
                }
                zone.counters.rejected.increment();
                return zone;
            }
            zone.counters.passed.increment();
            leases.add(new Lease(zone, key, null, true));
        }
        return null;
    }

    /** Whether a limit-conn zone here counts in Redis: then {@link #acquireConnectionsLater} takes the slots. */
    boolean sharesConnections() {
        return sharesConnections;
    }

    /**
     * {@link #acquireConnections} for a location with a shared limit-conn zone: the zones in order, a shared one a
     * round trip, completing on the store's thread. Keys are read here, on the loop.
     */
    CompletableFuture<Acquired> acquireConnectionsLater(ClientExchange client, HttpRequest request) {
        ClientKey[] keys = new ClientKey[conn.length];
        for (int i = 0; i < conn.length; i++) {
            keys[i] = conn[i].key.of(client, request);
        }
        return acquireFrom(0, keys, new ArrayList<>(conn.length), client.channel().eventLoop());
    }

    /** {@code loop}: the client channel's, whose timer bounds each shared zone's count (store-timeout). */
    private CompletableFuture<Acquired> acquireFrom(int first, ClientKey[] keys, List<Lease> leases,
            ScheduledExecutorService loop) {
        for (int i = first; i < conn.length; i++) {
            ConnZone zone = conn[i];
            if (keys[i] == null) {
                continue;
            }
            if (zone.shared != null) {
                int at = i;
                return zone.acquireShared(keys[i], loop).thenCompose(lease -> {
                    if (lease == null) {
                        return CompletableFuture.completedFuture(full(zone, leases));
                    }
                    zone.counters.passed.increment();
                    leases.add(lease);
                    return acquireFrom(at + 1, keys, leases, loop);
                });
            }
            if (!zone.tryAcquire(keys[i])) {
                return CompletableFuture.completedFuture(full(zone, leases));
            }
            zone.counters.passed.increment();
            leases.add(new Lease(zone, keys[i], null, true));
        }
        return CompletableFuture.completedFuture(new Acquired(leases, null));
    }

    /** {@code zone} was full: the slots taken before it are given back. */
    private static Acquired full(ConnZone zone, List<Lease> leases) {
        leases.forEach(Lease::release);
        zone.counters.rejected.increment();
        return new Acquired(List.of(), zone);
    }

    boolean limitsConnections() {
        return conn.length > 0;
    }
}
