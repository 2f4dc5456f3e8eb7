package io.portico.config;

import java.time.Duration;
import java.util.Map;

/**
 * Settings shared by every static location: the open-file cache, symlink policy and media types.
 *
 * @param cacheSendfileFrom files of at least this many bytes go out by sendfile from a descriptor the cache keeps
 *     open, where the connection can sendfile (plain HTTP/1.1, the location not compressing); smaller ones (and
 *     every file elsewhere, up to {@code cacheMaxFileSize}) from memory
 */
public record StaticConfig(
        long cacheMaxSize,
        long cacheMaxFileSize,
        Duration revalidate,
        FollowSymlinks followSymlinks,
        Map<String, String> mediaTypes,
        long cacheSendfileFrom) {

    /** nginx's {@code disable_symlinks}, inverted: which symlinks a static location follows. */
    public enum FollowSymlinks {
        INSIDE_ROOT,
        NEVER,
        ALWAYS
    }
}
