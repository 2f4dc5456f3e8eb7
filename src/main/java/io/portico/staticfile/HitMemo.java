package io.portico.staticfile;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * Per event loop, the request paths whose walk ended at a file on its first candidate, with that file's metadata:
 * a request for such a path is served from it without decoding and resolving its path again or looking it up in
 * the metadata cache (together a third of a cached hit's own work in a profile under wrk). The walk is a function
 * of the request path and the metadata it finds, so as long as that metadata is still the cache's, and the cache
 * would not stat it again yet ({@link FileCache#fresh}), the outcome is the one the walk would reach. nginx's
 * open_file_cache is likewise per worker.
 *
 * <p>One table per thread, shared by every location: 1024 slots, direct-mapped, a colliding path replaces the one
 * before. An entry names its location by a token rather than the responder, so a stale entry after a reload holds
 * a token and a file's metadata, never the old generation. Used only on the thread that owns the table: no locks.
 */
final class HitMemo {
    private static final int SLOTS = 1024;
    private static final FastThreadLocal<Entry[]> TABLES = new FastThreadLocal<>() {
        @Override
        protected Entry[] initialValue() {
            return new Entry[SLOTS];
        }
    };

    private record Entry(Object owner, String path, FileMeta file) {}

    /** This location's identity in the shared tables. */
    private final Object owner = new Object();
    private final int salt = System.identityHashCode(owner);
    private final FileCache cache;

    HitMemo(FileCache cache) {
        this.cache = cache;
    }

    /** The file {@code path} was found to be, when that is still true enough to serve without a lookup; else null. */
    FileMeta get(String path) {
        Entry e = TABLES.get()[slot(path)];
        if (e == null || e.owner != owner || !e.path.equals(path) || !cache.fresh(e.file)) {
            return null;
        }
        return e.file;
    }

    void put(String path, FileMeta file) {
        if (cache.fresh(file)) {
            TABLES.get()[slot(path)] = new Entry(owner, path, file);
        }
    }

    private int slot(String path) {
        int h = path.hashCode() ^ salt;
        return (h ^ (h >>> 16)) & (SLOTS - 1);
    }
}
