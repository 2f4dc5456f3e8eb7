package io.portico.ratelimit;

/**
 * The state of one rate-limit zone kept in this process: every key's bucket, and the nginx {@code limit_req}
 * arithmetic that charges it. A decision is made at once, on the caller's thread; state kept elsewhere and
 * shared by several instances answers later, through {@link SharedZoneStore}.
 *
 * <p>Verdicts are encoded in one {@code long} so the hot path allocates nothing: {@code >= 0} means the request
 * is admitted (and charged) and must wait that many nanoseconds before it is served (0: at once); {@code < 0}
 * means it is rejected, charged nothing, and a request would be admitted after {@code -verdict} nanoseconds.
 */
interface ZoneStore {

    /** Admits and charges one request of {@code key} at {@code nowNanos}, or rejects it without charging. */
    long take(ClientKey key, long nowNanos);

    /**
     * {@link #take} for a connection that remembers where its last client's state was: {@code memo} is that
     * connection's own, and a store may use it to skip finding the key. The default ignores it.
     */
    default long take(ClientKey key, long nowNanos, SlotMemo memo) {
        return take(key, nowNanos);
    }

    /** Undoes a {@link #take} that admitted {@code key}: another zone rejected the same request. */
    void giveBack(ClientKey key, long nowNanos);

    /** {@link #giveBack} for a request charged through {@code memo}. */
    default void giveBack(ClientKey key, long nowNanos, SlotMemo memo) {
        giveBack(key, nowNanos);
    }

    /**
     * How far ahead of {@code nowNanos} the key's bucket is charged (nginx's {@code excess * T}); 0 for a key with
     * a full bucket or no state. Read for the RateLimit header of passing responses only.
     */
    long backlogNanos(ClientKey key, long nowNanos);

    /** Keys currently held (an estimate). */
    long size();

    /** Keys dropped to stay under the zone's maximum size (not counting idle keys that had fully refilled). */
    long evictions();

    /** Runs pending expiry and eviction work now (tests, measurements). */
    void cleanUp();

    static boolean admitted(long verdict) {
        return verdict >= 0;
    }
}
