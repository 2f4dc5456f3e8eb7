package io.portico.cache;

/** What a zone holds under a key: a response, or the request headers its key's responses vary on. */
sealed interface Stored permits CachedResponse, VaryNames {
    /** Bytes this value takes, for the zone's weigher (the key and a fixed overhead are added there). */
    int weight();
}
