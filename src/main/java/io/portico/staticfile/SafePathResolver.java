package io.portico.staticfile;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.config.StaticConfig.FollowSymlinks;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The only way from a request path to a file: decodes the raw path once, rejects what could smuggle a separator or
 * escape the directory, and joins validated segments under the location's directory. Whatever it returns is inside
 * {@code dir} lexically; {@link #followable} then checks the real (symlink-resolved) path off the event loop.
 */
final class SafePathResolver {

    /** The outcome of resolving a request path. */
    sealed interface Resolution {
        /**
         * {@code relative}: validated segments below the directory joined by '/', no leading slash ("" is the
         * directory itself); {@code normalized}: the whole request path normalized, without its leading slash.
         */
        record Found(String relative, boolean trailingSlash, String normalized) implements Resolution {
            /** The normalized request path, for redirects and listings. */
            String path() {
                return "/" + normalized;
            }
        }

        record Rejected(HttpResponseStatus status) implements Resolution {}
    }

    private static final Resolution BAD = new Resolution.Rejected(HttpResponseStatus.BAD_REQUEST);
    private static final Resolution NOT_FOUND = new Resolution.Rejected(HttpResponseStatus.NOT_FOUND);

    private final Path dir;
    private final boolean alias;
    /** The alias prefix without its slashes ("static" for "/static/"), and the same with a trailing '/'. */
    private final String prefix;
    private final String prefixSlash;
    private final boolean allowDotfiles;

    /** @param aliasPrefix the decoded location prefix replaced by {@code dir}, or null to append the whole path */
    SafePathResolver(Path dir, String aliasPrefix, boolean allowDotfiles) {
        this.dir = dir.toAbsolutePath().normalize();
        this.alias = aliasPrefix != null;
        String p = aliasPrefix == null ? "" : aliasPrefix.startsWith("/") ? aliasPrefix.substring(1) : aliasPrefix;
        this.prefix = p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
        this.prefixSlash = prefix + "/";
        this.allowDotfiles = allowDotfiles;
    }

    Path dir() {
        return dir;
    }

    /** @param path the request's normalized path; null (refused by normalization) is a bad request here too */
    Resolution resolve(String path) {
        if (path == null) {
            return BAD;
        }
        String decoded = PercentCoding.decode(path);
        if (decoded == null || decoded.isEmpty() || decoded.charAt(0) != '/') {
            return BAD;
        }
        String normalized = normalize(decoded);
        if (normalized == null) {
            return BAD;
        }
        boolean trailingSlash = decoded.endsWith("/") || decoded.endsWith("/.") || decoded.endsWith("/..");
        String relative = normalized;
        if (alias) {
            relative = stripPrefix(normalized);
            if (relative == null) {
                return NOT_FOUND;
            }
        }
        if (!allowDotfiles && hasDotSegment(relative)) {
            return NOT_FOUND;
        }
        return new Resolution.Found(relative, trailingSlash, normalized);
    }

    /**
     * The validated path below {@code dir} for a candidate (a resolved path or a try-files entry built from one),
     * re-normalized and re-checked so that config-supplied parts cannot escape either; null when it would leave
     * {@code dir} or name a dotfile. No leading slash; "" is the directory itself.
     */
    String file(String candidate) {
        String normalized = normalize(candidate.startsWith("/") ? candidate : "/" + candidate);
        if (normalized == null || (!allowDotfiles && hasDotSegment(normalized)) || normalized.indexOf('\\') >= 0
                || normalized.indexOf('\0') >= 0) {
            return null;
        }
        return normalized;
    }

    /** The file of a validated relative path: joined under {@code dir} and checked to be inside it. */
    Path path(String relative) {
        Path file = relative.isEmpty() ? dir : dir.resolve(relative).normalize();
        if (!file.startsWith(dir)) {
            throw new IllegalArgumentException("outside " + dir + ": " + relative);
        }
        return file;
    }

    /**
     * Whether {@code file} (lexically inside {@code root}) may be served under {@code policy}; reads the file
     * system, so call it off the event loop. Missing files throw {@link IOException}.
     */
    static Path followable(Path root, Path file, FollowSymlinks policy) throws IOException {
        Path real = file.toRealPath();
        if (policy == FollowSymlinks.ALWAYS) {
            return real;
        }
        Path realRoot = root.toRealPath();
        Path lexical = realRoot.resolve(root.relativize(file));
        boolean ok = policy == FollowSymlinks.NEVER
                ? real.equals(lexical)
                : real.startsWith(realRoot);
        if (!ok) {
            throw new SymlinkRefusedException(file);
        }
        return real;
    }

    static final class SymlinkRefusedException extends IOException {
        SymlinkRefusedException(Path file) {
            super("symlink not followed: " + file);
        }
    }

    /** Collapses empty and dot segments; null when ".." would climb above the start. No leading slash in result. */
    static String normalize(String path) {
        if (path.length() <= 1) {
            return "";
        }
        if (isNormal(path)) {
            return path.endsWith("/") ? path.substring(1, path.length() - 1) : path.substring(1);
        }
        Deque<String> segments = new ArrayDeque<>();
        int start = 1;
        while (start <= path.length()) {
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            String segment = path.substring(start, end);
            if (segment.equals("..")) {
                if (segments.pollLast() == null) {
                    return null;
                }
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.addLast(segment);
            }
            start = end + 1;
        }
        return String.join("/", segments);
    }

    /** The common case, cheaply: no empty, "." or ".." segment, so nothing to collapse. */
    private static boolean isNormal(String path) {
        int n = path.length();
        for (int i = 0; i < n; i++) {
            if (path.charAt(i) == '/') {
                int next = i + 1;
                if (next < n && path.charAt(next) == '/') {
                    return false;
                }
                if (next < n && path.charAt(next) == '.') {
                    int after = next + 1;
                    if (after == n || path.charAt(after) == '/') {
                        return false;
                    }
                    if (path.charAt(after) == '.' && (after + 1 == n || path.charAt(after + 1) == '/')) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static boolean hasDotSegment(String relative) {
        return relative.startsWith(".") || relative.contains("/.");
    }

    /** The part of a normalized path below the alias prefix, or null when the path is not under it. */
    private String stripPrefix(String normalized) {
        if (prefix.isEmpty()) {
            return normalized;
        }
        if (normalized.equals(prefix)) {
            return "";
        }
        // "/staticfoo" under prefix "/static" is a sibling, not a child: nginx would map it next to dir
        return normalized.startsWith(prefixSlash) ? normalized.substring(prefixSlash.length()) : null;
    }
}
