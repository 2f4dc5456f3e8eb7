package io.portico.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What answers the requests of a location: files, an upstream pool, a fixed response, or the server's metrics. */
public sealed interface TargetConfig {

    /**
     * Files from a directory. With {@code alias} the location prefix is replaced by {@code dir}; otherwise
     * ({@code root}) the whole URI path is appended to {@code dir}.
     *
     * @param tryFiles nginx's try_files: {@code $uri}, {@code $uri/...}, and a last {@code @upstream} or {@code =CODE}
     */
    record Static(
            Path dir,
            boolean alias,
            List<String> index,
            List<String> tryFiles,
            boolean autoindex,
            Optional<Duration> expires,
            Optional<String> cacheControl,
            boolean precompressed,
            boolean allowDotfiles)
            implements TargetConfig {}

    /**
     * An upstream pool. {@code uriPrefix}, when present, replaces the location prefix like nginx's
     * {@code proxy_pass http://app/prefix/}; {@code forwardedHeaders} are the forwarding headers Portico sets; the
     * values of {@code setRequestHeaders} and {@code setResponseHeaders} may hold variables;
     * {@code mergeSlashes = false} forwards the normalized path with its empty segments kept; {@code params} are
     * the variables added to (or replacing) the standard ones of a uwsgi request, like nginx's {@code uwsgi_param},
     * their values may hold variables; {@code fastcgiRoot} and {@code fastcgiIndex} make a FastCGI request's
     * {@code SCRIPT_FILENAME} (root + path, the index appended to a path ending in /), as nginx's
     * {@code $document_root$fastcgi_script_name} with {@code fastcgi_index}. {@code ignoreClientAbort}, like
     * nginx's {@code proxy_ignore_client_abort}: a client that closes or shuts its sending side while its response
     * is awaited or relayed does not end the exchange (false: it does, and the upstream connection is closed).
     */
    record Proxy(
            String upstream,
            Optional<String> uriPrefix,
            boolean hostFromUpstream,
            boolean requestBuffering,
            boolean responseBuffering,
            long clientBodyBufferSize,
            long proxyBuffers,
            boolean via,
            Set<ForwardedHeader> forwardedHeaders,
            Map<String, TextTemplate> setRequestHeaders,
            Map<String, TextTemplate> setResponseHeaders,
            boolean mergeSlashes,
            Map<String, TextTemplate> params,
            Optional<Path> fastcgiRoot,
            String fastcgiIndex,
            boolean ignoreClientAbort)
            implements TargetConfig {

        /** A proxy without {@code params}, aborted by its client's leaving (the default). */
        public Proxy(String upstream, Optional<String> uriPrefix, boolean hostFromUpstream, boolean requestBuffering,
                boolean responseBuffering, long clientBodyBufferSize, long proxyBuffers, boolean via,
                Set<ForwardedHeader> forwardedHeaders, Map<String, TextTemplate> setRequestHeaders,
                Map<String, TextTemplate> setResponseHeaders, boolean mergeSlashes) {
            this(upstream, uriPrefix, hostFromUpstream, requestBuffering, responseBuffering, clientBodyBufferSize,
                    proxyBuffers, via, forwardedHeaders, setRequestHeaders, setResponseHeaders, mergeSlashes, Map.of(),
                    Optional.empty(), "index.php", false);
        }
    }

    /** A fixed answer: a redirect when {@code location} is set, else {@code body}; both may hold variables. */
    record Return(int status, Optional<TextTemplate> location, TextTemplate body) implements TargetConfig {}

    /** The server's counters in a monitoring format; {@code prometheus} (text exposition format 0.0.4) only. */
    record Metrics(String format) implements TargetConfig {}

    /** The status page (HTML, or JSON when asked); {@code page} is its one kind. */
    record Status(String kind) implements TargetConfig {}

    /** A load balancer's health check: 200, or 503 while the server drains. */
    record Health() implements TargetConfig {}
}
