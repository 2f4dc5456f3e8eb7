package io.portico.staticfile;

/**
 * The in-memory cache of small files, as the metrics report it.
 *
 * @param hits responses whose bytes came from memory
 * @param misses small files read from disk (then kept) because their bytes were not in memory
 * @param hitBytes bytes served from memory
 * @param cachedBytes bytes held now (bounded by {@code cache-max-size})
 */
public record CacheFigures(long hits, long misses, long hitBytes, long cachedBytes) {}
