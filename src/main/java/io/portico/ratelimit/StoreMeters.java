package io.portico.ratelimit;

/**
 * What a zone kept in Redis (a rate-limit zone's {@link RedisZoneStore}, a limit-conn zone's {@link RedisConnStore},
 * each bound to its kind's histograms) tells the metrics about its decisions' round trips: the ratelimit package's
 * side of the metrics (which implement it, so this package does not depend on theirs). Bound once per zone when its
 * generation of the configuration becomes the current one; each call is then a histogram record. Called on the
 * event loop that asked (its own connection reads the reply), concurrently for one zone from several loops.
 */
public interface StoreMeters {
    /** Records nothing: a zone no metrics are bound to (tests, tools). */
    StoreMeters NONE = new StoreMeters() {};

    /**
     * A decision's command was answered, {@code nanos} after it was sent: Redis's round trip as the loop saw it (the
     * write, the network, Redis's queue and script, and the loop's wait to read the reply). A reply that came after
     * store-timeout is counted too; a command that failed (an error reply, a lost connection) or was never answered
     * is not.
     */
    default void answered(long nanos) {}

    /**
     * A decision that asked Redis was made, {@code nanos} after the zone was asked: by Redis's answer, or by
     * on-store-failure (store-timeout, a failed command). Includes the key's routing and any wait for the connection
     * before the command left. Decisions made without asking (a key Redis rejected, answered here until its wait
     * ends; a store paused after failures) are not counted.
     */
    default void decided(long nanos) {}
}
