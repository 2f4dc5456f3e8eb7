package io.portico.config;

import java.time.Duration;
import java.util.Map;

/** Settings shared by every static location: the open-file cache, symlink policy and media types. */
public record StaticConfig(
        long cacheMaxSize,
        long cacheMaxFileSize,
        Duration revalidate,
        FollowSymlinks followSymlinks,
        Map<String, String> mediaTypes) {

    /** nginx's {@code disable_symlinks}, inverted: which symlinks a static location follows. */
    public enum FollowSymlinks {
        INSIDE_ROOT,
        NEVER,
        ALWAYS
    }
}
