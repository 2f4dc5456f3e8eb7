package io.portico.ratelimit;

/**
 * Where one connection's last client of one zone keeps its state: a keep-alive connection nearly always carries
 * one client, so its next request is charged without finding the client among all the zone's clients again.
 * Owned by one channel's handler and used on its event loop only; a store that has no use for it ignores it
 * ({@link CompactZoneStore} says when a remembered state may be charged).
 */
final class SlotMemo {
    /** The stored key (and state) this connection last charged; null before its first request. */
    ClientKey slot;
    /** When the store last found {@code slot} in its cache, which refreshed the cache entry's access time. */
    long foundAt;
    /** Requests charged through this memo since then. */
    int uses;
}
