package io.portico.ratelimit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The state of a zone kept outside this process (Redis), shared by every Portico instance that names the same
 * store, so that a client's requests through any of them draw on one bucket. Unlike {@link ZoneStore}, a
 * decision is a round trip: it answers later, on a thread of the store's client, and never blocks the caller.
 * Verdicts are encoded as {@link ZoneStore}'s.
 */
interface SharedZoneStore {

    /**
     * A decision: {@code verdict} as {@link ZoneStore#take} encodes it; {@code storeFailed} when the store could not
     * decide and the zone's {@code on-store-failure} did.
     */
    record Answer(long verdict, boolean storeFailed) {}

    /**
     * Admits and charges one request of {@code key}, or rejects it without charging. Never completes
     * exceptionally: when the store cannot decide within the zone's {@code store-timeout}, the zone's
     * {@code on-store-failure} decides (this instance's own bucket for the key, admit, or reject with a retry of
     * one second) and {@link #failures()} counts it. {@code timer}: the asking event loop's, on which the
     * store-timeout is counted.
     */
    CompletableFuture<Answer> take(ClientKey key, ScheduledExecutorService timer);

    /** Undoes a {@link #take} that admitted {@code key} with {@code answer}; does not wait for the store. */
    void giveBack(ClientKey key, Answer answer);

    /** Decisions the store could not make in time, which {@code on-store-failure} made instead. */
    long failures();

    /**
     * The clients this instance asked the store about within the zone's forget-after (an estimate): each instance
     * counts its own, the store holds every instance's.
     */
    long clients();

    /** Where the round trips of the decisions that ask the store are recorded from now on (metrics). */
    void meters(StoreMeters meters);
}
