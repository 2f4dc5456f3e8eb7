package io.portico.staticfile;

import io.netty.util.AsciiString;
import io.portico.exchange.HttpDates;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What the open-file cache knows about one path: whether it is a servable file, a directory or nothing (missing,
 * refused symlink, device...), with the validators precomputed so a cached hit formats nothing. The content type is
 * the one of the name as requested ({@code path}), not of a symlink's target.
 *
 * @param key the cache key it was loaded for (to invalidate it)
 * @param path the lexical path under the location directory; {@code real}: the symlink-free path to open
 * @param variants of a file: its precompressed siblings by {@link ContentCoding} ordinal (null where absent), or
 *     null when it has none, stat'ed with it so that a hit needs a single lookup
 * @param contentKey of a file: the key of its bytes and descriptor in the cache, made once here rather than by every
 *     request that looks them up; null otherwise
 * @param freshness when the cache last found this metadata true on disk, and whether it was dropped since: what
 *     lets a request skip the cache lookup ({@link HitMemo}) only while the cache itself would not stat again
 */
record FileMeta(
        Kind kind,
        FileCache.Key key,
        Path path,
        Path real,
        long size,
        long mtimeMillis,
        String etag,
        String lastModified,
        String contentType,
        FileMeta[] variants,
        HeaderValues values,
        FileCache.ContentKey contentKey,
        Freshness freshness) {

    /**
     * Stamped by the cache with its ticker when a stat finds the file (a refresh that finds it unchanged stamps the
     * entry it keeps), retired when the entry is replaced or invalidated. Written on a cache thread, read on the
     * event loops: volatile.
     */
    static final class Freshness {
        private volatile long verifiedNanos;
        private volatile boolean stamped;
        private volatile boolean retired;

        void verified(long nanos) {
            verifiedNanos = nanos;
            stamped = true;
        }

        void retire() {
            retired = true;
        }

        /** Verified less than {@code within} nanoseconds before {@code now}, and still the cache's entry. */
        boolean freshAt(long now, long within) {
            return stamped && !retired && now - verifiedNanos < within;
        }

        @Override
        public String toString() {
            return retired ? "retired" : stamped ? "verified@" + verifiedNanos : "unstamped";
        }
    }

    /**
     * The header values of a file as the encoder wants them: ASCII bytes made once per cache load, so a cached hit
     * neither formats its length nor re-encodes its strings.
     */
    record HeaderValues(AsciiString length, AsciiString contentType, AsciiString lastModified, AsciiString etag) {
        static HeaderValues of(long size, String contentType, String lastModified, String etag) {
            return new HeaderValues(new AsciiString(Long.toString(size)),
                    contentType == null ? null : new AsciiString(contentType),
                    new AsciiString(lastModified), new AsciiString(etag));
        }
    }

    enum Kind {
        FILE,
        DIRECTORY,
        MISSING
    }

    static FileMeta missing(FileCache.Key key, Path path) {
        return new FileMeta(Kind.MISSING, key, path, null, 0, 0, null, null, null, null, null, null, new Freshness());
    }

    static FileMeta directory(FileCache.Key key, Path path, Path real) {
        return new FileMeta(Kind.DIRECTORY, key, path, real, 0, 0, null, null, null, null, null, null, new Freshness());
    }

    /** A regular file; the ETag is nginx's: hex mtime seconds, dash, hex size. */
    static FileMeta file(FileCache.Key key, Path path, Path real, long size, long mtimeMillis, String contentType,
            FileMeta[] variants) {
        long seconds = Math.floorDiv(mtimeMillis, 1000L);
        String etag = "\"" + Long.toHexString(seconds) + "-" + Long.toHexString(size) + "\"";
        String lastModified = HttpDates.format(seconds);
        return new FileMeta(Kind.FILE, key, path, real, size, mtimeMillis, etag, lastModified, contentType, variants,
                HeaderValues.of(size, contentType, lastModified, etag),
                new FileCache.ContentKey(real, mtimeMillis, size), new Freshness());
    }

    /**
     * The same file as the {@code coding} variant of another: its ETag gets the coding appended
     * ({@code "<mtime>-<size>-br"}), so that a variant's ETag differs from the original's even at equal size and
     * mtime.
     */
    FileMeta asVariant(ContentCoding coding) {
        String tagged = etag.substring(0, etag.length() - 1) + "-" + coding.token + "\"";
        return new FileMeta(kind, key, path, real, size, mtimeMillis, tagged, lastModified, contentType, null,
                HeaderValues.of(size, contentType, lastModified, tagged), contentKey, new Freshness());
    }

    /**
     * Whether {@code other} describes the same thing on disk: kind, paths, size, mtime and variants. The rest
     * (type, validators, header values) follows from those.
     */
    boolean sameFileAs(FileMeta other) {
        return kind == other.kind && size == other.size && mtimeMillis == other.mtimeMillis
                && Objects.equals(path, other.path) && Objects.equals(real, other.real)
                && sameVariants(variants, other.variants);
    }

    private static boolean sameVariants(FileMeta[] a, FileMeta[] b) {
        if (a == null || b == null) {
            return a == b;
        }
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i] && (a[i] == null || b[i] == null || !a[i].sameFileAs(b[i]))) {
                return false;
            }
        }
        return true;
    }

    boolean isFile() {
        return kind == Kind.FILE;
    }

    boolean isDirectory() {
        return kind == Kind.DIRECTORY;
    }

    long mtimeSeconds() {
        return Math.floorDiv(mtimeMillis, 1000L);
    }
}
