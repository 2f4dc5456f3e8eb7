package io.portico.staticfile;

import io.netty.handler.codec.DateFormatter;
import java.nio.file.Path;
import java.util.Date;

/**
 * What the open-file cache knows about one path: whether it is a servable file, a directory or nothing (missing,
 * refused symlink, device...), with the validators precomputed so a cached hit formats nothing. The content type is
 * the one of the name as requested ({@code path}), not of a symlink's target.
 */
record FileMeta(
        Kind kind, Path path, Path real, long size, long mtimeMillis, String etag, String lastModified, String contentType) {

    enum Kind {
        FILE,
        DIRECTORY,
        MISSING
    }

    static FileMeta missing(Path path) {
        return new FileMeta(Kind.MISSING, path, null, 0, 0, null, null, null);
    }

    static FileMeta directory(Path path, Path real) {
        return new FileMeta(Kind.DIRECTORY, path, real, 0, 0, null, null, null);
    }

    /** A regular file; the ETag is nginx's: hex mtime seconds, dash, hex size. */
    static FileMeta file(Path path, Path real, long size, long mtimeMillis, String contentType) {
        long seconds = Math.floorDiv(mtimeMillis, 1000L);
        String etag = "\"" + Long.toHexString(seconds) + "-" + Long.toHexString(size) + "\"";
        String lastModified = DateFormatter.format(new Date(seconds * 1000));
        return new FileMeta(Kind.FILE, path, real, size, mtimeMillis, etag, lastModified, contentType);
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
