package io.portico.staticfile;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.staticfile.SafePathResolver.Resolution;
import io.portico.staticfile.TryFiles.Candidate;
import io.portico.staticfile.TryFiles.Mode;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * From the request path to what answers it: the try-files candidates in order, a directory's redirect, index or
 * listing, then the fallback. Each step looks metadata up in the cache, so a fully cached walk never leaves the loop.
 */
final class PathWalk {
    private final StaticExchange exchange;
    private final StaticResponder location;
    private final SafePathResolver resolver;
    private final Path root;
    private String uri;
    private Resolution.Found found;
    private boolean trailingSlash;

    PathWalk(StaticExchange exchange) {
        this.exchange = exchange;
        this.location = exchange.location();
        this.resolver = location.resolver();
        this.root = resolver.dir();
    }

    /**
     * Serves the file this request's path led to last time, when nothing the walk found has changed
     * ({@link HitMemo}): no walk to make. False when there is none.
     */
    static boolean serveRemembered(StaticExchange exchange) {
        String requestPath = exchange.client().path();
        if (requestPath == null || !StaticResponder.readOnly(exchange.request().method())) {
            return false;
        }
        FileMeta known = exchange.location().memo().get(requestPath);
        if (known == null) {
            return false;
        }
        serve(exchange, known);
        return true;
    }

    void start() {
        String requestPath = exchange.client().path();
        Resolution resolution = resolver.resolve(requestPath);
        if (resolution instanceof Resolution.Rejected rejected) {
            if (rejected.status().code() == 404 && location.tryFiles().hasNamedFallback()) {
                fallback(); // not a file we may serve: still the app's to answer
            } else {
                exchange.error(rejected.status());
            }
            return;
        }
        Resolution.Found found = (Resolution.Found) resolution;
        if (!location.tryFiles().hasNamedFallback() && !readOnly()) {
            exchange.methodNotAllowed();
            return;
        }
        this.found = found;
        trailingSlash = found.trailingSlash() || found.normalized().isEmpty();
        String relative = found.relative();
        // "" (not "/") for an alias location naming a file itself, e.g. exact "/favicon.ico" aliased to that file
        uri = relative.isEmpty() ? (trailingSlash ? "/" : "") : "/" + relative + (found.trailingSlash() ? "/" : "");
        candidate(0);
    }

    private void candidate(int index) {
        List<Candidate> candidates = location.tryFiles().candidates();
        if (index == candidates.size()) {
            fallback();
            return;
        }
        Candidate candidate = candidates.get(index);
        String expanded = candidate.expand(uri);
        String path = resolver.file(expanded);
        if (path == null) {
            candidate(index + 1);
            return;
        }
        boolean fileOk = candidate.mode() != Mode.DIRECTORY && !expanded.endsWith("/");
        boolean directoryOk = candidate.mode() != Mode.FILE;
        meta(path, meta -> {
            if (meta.isFile() && fileOk) {
                if (index == 0 && readOnly()) {
                    // the walk's first lookup found the file: the same path always ends here while it stays so
                    location.memo().put(exchange.client().path(), meta);
                }
                serve(exchange, meta);
            } else if (meta.isDirectory() && directoryOk) {
                directory(meta, expanded, index);
            } else {
                candidate(index + 1);
            }
        });
    }

    private void directory(FileMeta dir, String expanded, int index) {
        if (!readOnly()) {
            exchange.methodNotAllowed();
        } else if (!trailingSlash) {
            redirectToSlash();
        } else {
            index(dir, expanded.endsWith("/") ? expanded : expanded + "/", 0, index);
        }
    }

    private void index(FileMeta dir, String dirPath, int i, int candidateIndex) {
        List<String> names = location.target().index();
        if (i == names.size()) {
            if (location.target().autoindex()) {
                DirectoryListing.send(exchange, dir, found.path());
            } else if (location.tryFiles().candidates().get(candidateIndex).mode() == Mode.ANY) {
                exchange.error(HttpResponseStatus.FORBIDDEN);
            } else {
                candidate(candidateIndex + 1);
            }
            return;
        }
        String path = resolver.file(dirPath + names.get(i));
        if (path == null) {
            index(dir, dirPath, i + 1, candidateIndex);
            return;
        }
        meta(path, meta -> {
            if (meta.isFile()) {
                serve(exchange, meta);
            } else {
                index(dir, dirPath, i + 1, candidateIndex);
            }
        });
    }

    private static void serve(StaticExchange exchange, FileMeta file) {
        StaticResponder location = exchange.location();
        if (!StaticResponder.readOnly(exchange.request().method())) {
            exchange.methodNotAllowed();
        } else if (location.target().precompressed() && file.variants() != null) {
            FileMeta[] variants = file.variants();
            boolean[] available = new boolean[variants.length];
            for (int k = 0; k < variants.length; k++) {
                available[k] = variants[k] != null;
            }
            String accept = exchange.request().headers().get(HttpHeaderNames.ACCEPT_ENCODING);
            ContentCoding coding = ContentCoding.choose(accept, available);
            FileMeta variant = coding == null ? null : variants[coding.ordinal()];
            location.sender().send(exchange, new Representation(file, coding, variant, true));
        } else {
            location.sender().send(exchange, Representation.plain(file));
        }
    }

    private void fallback() {
        TryFiles.Fallback fallback = location.tryFiles().fallback();
        if (fallback instanceof TryFiles.Fallback.Named named) {
            exchange.delegate(named.name());
        } else {
            exchange.error(HttpResponseStatus.valueOf(((TryFiles.Fallback.Status) fallback).code()));
        }
    }

    private void redirectToSlash() {
        String requestUri = exchange.request().uri();
        int query = requestUri.indexOf('?');
        // from the normalized path, never the raw one: "//evil.example" must not become a protocol-relative redirect
        String location = PercentCoding.encode(found.path() + "/")
                + (query < 0 ? "" : requestUri.substring(query));
        exchange.error(
                HttpResponseStatus.MOVED_PERMANENTLY, new DefaultHttpHeaders().set(HttpHeaderNames.LOCATION, location));
    }

    private void meta(String relative, Consumer<FileMeta> then) {
        exchange.await(location.cache().meta(root, relative), then,
                failure -> then.accept(FileMeta.missing(new FileCache.Key(root, relative), resolver.path(relative))),
                m -> {});
    }

    private boolean readOnly() {
        return StaticResponder.readOnly(exchange.request().method());
    }
}
