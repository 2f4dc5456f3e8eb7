package io.portico.nginx;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Every nginx directive {@code portico import} knows and what becomes of it: mapped (to the Portico key named),
 * not needed (Portico does it on its own, or it changes nothing a client sees), or not mapped (why, and the issue
 * that brings it). docs/from-nginx.md's table is {@link #markdown()}; a test keeps the two equal.
 */
final class DirectiveTable {
    enum Kind { MAPPED, NOT_NEEDED, NOT_MAPPED }

    record Entry(String name, Kind kind, String becomes) {}

    private static final Map<String, Entry> TABLE = new LinkedHashMap<>();

    static {
        mapped("worker_processes", "`workers` (`auto` or the number: Portico's event-loop threads)");
        mapped("listen", "`listen`: an address string, or `{ address, tls { ... } }` with `ssl`; `[::]:P` beside"
                + " `0.0.0.0:P` becomes `*:P`; `http2` is the listener's `http2 = on` (a TLS listener without it"
                + " `http2 = off`); a server's addresses are its host's `listen` where servers listen on different"
                + " sets; `proxy_protocol` is the listener's `proxy-protocol = true` with `trusted` from"
                + " `set_real_ip_from` (every address without it, reported); `quic` is not mapped");
        mapped("http2", "the listener's `http2` (`on`, or `off` where no server there says `on`; Portico's is per"
                + " listener, so TLS servers of one address that differ are reported)");
        mapped("http2_max_concurrent_streams", "`http2.max-concurrent-streams`");
        mapped("http2_body_preread_size", "`http2.initial-window-size` (nginx announces it as each stream's window)");
        mapped("http2_max_header_size", "`http2.max-header-list-size` (obsolete since nginx 1.19.7)");
        mapped("server", "the top-level `locations` (the default server) or entries of `hosts`, with `default ="
                + " true` on the addresses where it is nginx's default");
        mapped("server_name", "`hosts[].names` (`.example.com` becomes `example.com` and `*.example.com`;"
                + " regex names and `www.example.*` are not mapped)");
        mapped("location", "one entry of `locations` per location, nested ones flattened with what they inherit:"
                + " prefix `path`, `=` `exact`, `~` `regex`, `~*` `regex` with `(?i)`, `^~` `path`; `@name` only"
                + " as a `try-files` fallback");
        mapped("root", "`root` (static location)");
        mapped("alias", "`alias` (static location; a directory)");
        mapped("index", "`index`");
        mapped("try_files", "`try-files` (`$uri`, `$uri/`, `/path`, last `=CODE`, last `@name` when that named"
                + " location is a `proxy_pass` to an upstream)");
        mapped("autoindex", "`autoindex`");
        mapped("expires", "`expires` (`max` is 10 years; `off` nothing; `epoch`, negative and `@time` not mapped)");
        mapped("add_header", "`set-response-headers` on proxy locations (static and return locations have none)");
        mapped("return", "`return` (`{ status, location }`, `{ status, body }` or the status alone)");
        mapped("upstream", "one entry of `upstreams`");
        mapped("server (upstream)", "`servers` entries with `weight`, `max-fails`, `fail-timeout`, `backup`");
        mapped("keepalive", "`upstreams.NAME.keepalive` (Portico counts per event loop and server)");
        mapped("keepalive_timeout", "`limits.keepalive-timeout`; inside `upstream`, `keepalive-timeout`");
        mapped("least_conn", "`balance = least-conn`");
        mapped("ip_hash", "`balance = ip-hash`");
        mapped("hash", "`balance = hash`, `hash-key` (Portico's hash is always consistent)");
        mapped("random", "`balance = random-two` for `random two`");
        mapped("proxy_pass", "`proxy = NAME` or `proxy = \"http://NAME/uri/\"`; a host:port without an"
                + " `upstream` block gets an upstream of its own");
        mapped("proxy_set_header", "`set-request-headers`; `Host $host` is `host = client`, the X-Forwarded-For,"
                + " X-Real-IP, X-Forwarded-Proto, X-Forwarded-Host idioms are `forwarded-headers`");
        mapped("proxy_connect_timeout", "the upstream's `connect-timeout` (a copy of the upstream where"
                + " locations differ)");
        mapped("proxy_read_timeout", "the upstream's `read-timeout`");
        mapped("proxy_send_timeout", "the upstream's `send-timeout`");
        mapped("proxy_buffering", "`proxy-response-buffering`");
        mapped("proxy_request_buffering", "`proxy-request-buffering`");
        mapped("proxy_ignore_client_abort", "`ignore-client-abort`");
        mapped("client_body_buffer_size", "`client-body-buffer-size` (proxy locations)");
        mapped("proxy_http_version", "nothing to write: Portico speaks HTTP/1.1 with keep-alive upstream");
        mapped("limit_req_zone", "one entry of `rate-limits` (`key`, `rate`, `max-clients` at 16000 per MB)");
        mapped("limit_req", "the location's `rate-limit`, and the zone's `burst`, `nodelay`, `delay`");
        mapped("limit_req_status", "the zone's `status` (nginx's default 503 is written out; Portico's is 429)");
        mapped("limit_req_dry_run", "the zone's `dry-run`");
        mapped("limit_conn_zone", "one entry of `limit-conn`");
        mapped("limit_conn", "the location's `limit-conn`, the zone's `max`");
        mapped("limit_conn_status", "the zone's `status` (503 written out as for limit_req_status)");
        mapped("allow", "the location's `allow` (when nginx's first-match order means the same)");
        mapped("deny", "the location's `deny` (`deny all` after allows: `allow` alone)");
        mapped("client_max_body_size", "`limits.max-body-size`, or a location's `max-body-size`");
        mapped("client_header_timeout", "`limits.client-header-timeout`");
        mapped("client_body_timeout", "`limits.client-body-timeout`");
        mapped("send_timeout", "`limits.send-timeout`");
        mapped("keepalive_requests", "`limits.keepalive-requests`");
        mapped("set_real_ip_from", "`trusted-proxies` (Portico behaves as `real_ip_recursive on`); the `trusted` of"
                + " `proxy_protocol` listeners (with `real_ip_header proxy_protocol`, only that)");
        mapped("real_ip_header", "nothing to write for X-Forwarded-For (the header Portico reads), nor for"
                + " `proxy_protocol` (a PROXY listener's client is the header's)");
        mapped("real_ip_recursive", "nothing to write for `on` (Portico's behaviour)");
        mapped("ssl_certificate", "the listener's `tls.certificates[].cert`");
        mapped("ssl_certificate_key", "the listener's `tls.certificates[].key`");
        mapped("ssl_protocols", "`tls.protocols` (TLSv1.2 and TLSv1.3 only; older ones are left out)");
        mapped("ssl_session_timeout", "`tls.session-timeout`");
        mapped("access_log", "`access-log` (`off` or the file; Portico writes `combined` plus timings)");
        mapped("include", "the included files, read in place");
        mapped("http", "the whole file");
        mapped("gzip", "nothing for `gzip off`; `gzip on` is not mapped (compression: issue 27)");
        mapped("gzip_static", "`precompressed` (Portico also serves .br and .zst)");
        notNeeded("events", "Portico sizes its own event loops");
        notNeeded("worker_connections", "Portico bounds client connections with `limits.max-connections`");
        notNeeded("worker_rlimit_nofile", "`bin/portico` raises the open-file limit");
        notNeeded("user", "Portico runs as the user that starts it");
        notNeeded("pid", "no pid file");
        notNeeded("daemon", "Portico runs in the foreground (a service manager runs it)");
        notNeeded("error_log", "Portico logs through logback");
        notNeeded("sendfile", "Portico chooses sendfile itself (large files, plain HTTP)");
        notNeeded("tcp_nopush", "a socket option Portico sets itself");
        notNeeded("tcp_nodelay", "Portico sets TCP_NODELAY");
        notNeeded("open_file_cache", "`static.cache` is on by default");
        notNeeded("open_file_cache_valid", "`static.cache.revalidate`");
        notNeeded("open_file_cache_errors", "`static.cache`");
        notNeeded("open_file_cache_min_uses", "`static.cache`");
        notNeeded("types", "Portico has its own media types (`static.media-types` adds)");
        notNeeded("default_type", "Portico's default media type");
        notNeeded("types_hash_max_size", "a hash size");
        notNeeded("types_hash_bucket_size", "a hash size");
        notNeeded("server_names_hash_bucket_size", "a hash size");
        notNeeded("server_names_hash_max_size", "a hash size");
        notNeeded("variables_hash_max_size", "a hash size");
        notNeeded("proxy_headers_hash_max_size", "a hash size");
        notNeeded("proxy_headers_hash_bucket_size", "a hash size");
        notNeeded("server_tokens", "Portico sends no version");
        notNeeded("log_format", "Portico writes `combined` plus timings");
        notNeeded("client_body_temp_path", "Portico's temp files go to java.io.tmpdir");
        notNeeded("proxy_temp_path", "Portico's temp files go to java.io.tmpdir");
        notNeeded("fastcgi_temp_path", "no FastCGI");
        notNeeded("uwsgi_temp_path", "no uwsgi");
        notNeeded("scgi_temp_path", "no scgi");
        notNeeded("charset", "Portico sends the media type's charset");
        notNeeded("multi_accept", "an event-loop detail");
        notNeeded("use", "`transport`");
        notNeeded("accept_mutex", "SO_REUSEPORT listeners");
        notNeeded("zone", "Portico's upstream state is in process");
        notNeeded("limit_req_log_level", "the access log notes each limit decision");
        notNeeded("limit_conn_log_level", "the access log notes each limit decision");
        notNeeded("ssl_prefer_server_ciphers", "Portico's cipher order is the server's");
        notNeeded("ssl_session_cache", "`tls.session-cache-size` (20000 by default)");
        notNeeded("ssl_dhparam", "Portico offers ECDHE only");
        notNeeded("ssl_ecdh_curve", "the engine's curves");
        notNeeded("ssl_session_tickets", "the engine's default");
        notNeeded("proxy_buffer_size", "Portico's `proxy-buffers` bound what it buffers");
        notNeeded("proxy_buffers", "Portico's `proxy-buffers` (512k) bound what it buffers");
        notNeeded("proxy_busy_buffers_size", "Portico's `proxy-buffers` bound what it buffers");
        notNeeded("proxy_max_temp_file_size", "Portico's `proxy-buffers`");
        notNeeded("reset_timedout_connection", "Portico closes timed-out connections");
        notNeeded("server_name_in_redirect", "Portico's redirects use the Host");
        notNeeded("merge_slashes", "`merge-slashes` defaults to on, as nginx");
        notNeeded("aio", "Portico reads files off the event loop");
        notNeeded("directio", "Portico chooses how to send files");
        notNeeded("output_buffers", "Portico chooses how to send files");
        notNeeded("large_client_header_buffers", "`limits.max-request-line` and `max-header-size` (8k and 16k)");
        notNeeded("client_header_buffer_size", "`limits.max-header-size`");
        notNeeded("ssl_buffer_size", "TLS records are the engine's");
        notNeeded("http2_chunk_size", "Portico sizes the DATA frames it sends itself");
        notNeeded("http2_recv_buffer_size", "a per-worker read buffer");
        notNeeded("http2_streams_index_size", "a hash size");
        notNeeded("http2_idle_timeout", "obsolete since nginx 1.19.7 (keepalive_timeout): Portico closes an idle"
                + " HTTP/2 connection after `limits.keepalive-timeout`");
        notNeeded("http2_recv_timeout", "obsolete since nginx 1.19.7 (client_header_timeout)");
        notNeeded("http2_max_requests", "obsolete since nginx 1.19.7 (keepalive_requests)");
        mapped("uwsgi_pass", "`proxy` to an upstream of `uwsgi://ADDRESS` servers (an upstream block's name is"
                + " reported: write its servers as uwsgi://)");
        mapped("uwsgi_param", "the location's `params` (values with the variables Portico knows)");
        mapped("uwsgi_read_timeout", "the upstream's `read-timeout`");
        mapped("uwsgi_send_timeout", "the upstream's `send-timeout`");
        mapped("uwsgi_connect_timeout", "the upstream's `connect-timeout`");
        notMapped("uwsgi_buffering", "Portico buffers uwsgi responses as it does HTTP ones (proxy-response-buffering)");
        mapped("fastcgi_pass", "`proxy` to an upstream of `fastcgi://ADDRESS` servers");
        mapped("fastcgi_param", "`params`; `SCRIPT_FILENAME $document_root$fastcgi_script_name` over a `root` is"
                + " `fastcgi-root`");
        mapped("fastcgi_index", "`fastcgi-index`");
        notMapped("fastcgi_split_path_info", "Portico's SCRIPT_NAME is the whole path");
        mapped("fastcgi_read_timeout", "the upstream's `read-timeout`");
        mapped("fastcgi_send_timeout", "the upstream's `send-timeout`");
        mapped("fastcgi_connect_timeout", "the upstream's `connect-timeout`");
        notMapped("gzip_types", "compression is not supported yet (issue 27)");
        notMapped("gzip_vary", "compression is not supported yet (issue 27)");
        notMapped("gzip_comp_level", "compression is not supported yet (issue 27)");
        notMapped("gzip_min_length", "compression is not supported yet (issue 27)");
        notMapped("gzip_proxied", "compression is not supported yet (issue 27)");
        notMapped("gzip_buffers", "compression is not supported yet (issue 27)");
        notMapped("gzip_http_version", "compression is not supported yet (issue 27)");
        notMapped("gzip_disable", "compression is not supported yet (issue 27)");
        notMapped("proxy_cache", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_path", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_valid", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_key", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_bypass", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_use_stale", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_lock", "caching is not supported yet (issue 27)");
        notMapped("proxy_cache_methods", "caching is not supported yet (issue 27)");
        notMapped("proxy_no_cache", "caching is not supported yet (issue 27)");
        notMapped("http2_push", "Portico does not push (nginx 1.25.1 dropped push and ignores it)");
        notMapped("http2_push_preload", "Portico does not push (nginx 1.25.1 dropped push and ignores it)");
        notMapped("http2_max_field_size", "Portico limits the whole header list (`http2.max-header-list-size`),"
                + " not one compressed field (nginx 1.19.7+ ignores it too)");
        notMapped("ssl_ciphers", "Portico takes IANA suite names, not OpenSSL's cipher strings; it offers"
                + " Mozilla's intermediate set");
        notMapped("ssl_stapling", "OCSP stapling is not supported yet");
        notMapped("ssl_stapling_verify", "OCSP stapling is not supported yet");
        notMapped("ssl_trusted_certificate", "OCSP stapling and client certificates are not supported yet");
        notMapped("ssl_client_certificate", "client certificates are not supported yet");
        notMapped("ssl_verify_client", "client certificates are not supported yet");
        notMapped("rewrite", "Portico has no rewrites");
        notMapped("if", "Portico has no conditions");
        notMapped("set", "Portico has no variables of its own");
        notMapped("map", "Portico has no variables of its own");
        notMapped("geo", "Portico has no variables of its own");
        notMapped("error_page", "Portico has no custom error pages");
        notMapped("auth_basic", "Portico has no authentication");
        notMapped("auth_basic_user_file", "Portico has no authentication");
        notMapped("auth_request", "Portico has no authentication");
        notMapped("limit_except", "Portico has no per-method rules");
        notMapped("internal", "Portico has no internal locations");
        notMapped("proxy_redirect", "Portico does not rewrite Location headers");
        notMapped("proxy_cookie_domain", "Portico does not rewrite cookies");
        notMapped("proxy_cookie_path", "Portico does not rewrite cookies");
        notMapped("proxy_hide_header", "use set-response-headers with an empty value by hand");
        notMapped("proxy_pass_header", "Portico passes response headers through");
        notMapped("proxy_next_upstream", "Portico retries on error and timeout (`retries`), as nginx's default");
        notMapped("proxy_intercept_errors", "Portico has no custom error pages");
        notMapped("proxy_ssl_verify", "TLS to upstreams is not supported yet");
        notMapped("proxy_ssl_server_name", "TLS to upstreams is not supported yet");
        notMapped("sub_filter", "Portico does not rewrite bodies");
        notMapped("stub_status", "`metrics = prometheus` is Portico's status page; write it by hand");
        notMapped("stream", "Portico proxies HTTP only");
        notMapped("mail", "Portico proxies HTTP only");
        notMapped("resolver", "Portico resolves upstream names once, at load");
        notMapped("satisfy", "Portico has no authentication");
        notMapped("absolute_redirect", "Portico's redirects are as written");
        notMapped("port_in_redirect", "Portico's redirects are as written");
        notNeeded("etag", "Portico always sends ETags (an `etag off` is not honoured)");
        notNeeded("if_modified_since", "Portico answers conditional requests");
        notNeeded("max_ranges", "Portico answers ranges");
        notMapped("real_ip_header (not X-Forwarded-For or proxy_protocol)", "Portico reads X-Forwarded-For only");
        notMapped("split_clients", "Portico has no variables of its own");
    }

    private DirectiveTable() {}

    private static void mapped(String name, String becomes) {
        TABLE.put(name, new Entry(name, Kind.MAPPED, becomes));
    }

    private static void notNeeded(String name, String why) {
        TABLE.put(name, new Entry(name, Kind.NOT_NEEDED, why));
    }

    private static void notMapped(String name, String why) {
        TABLE.put(name, new Entry(name, Kind.NOT_MAPPED, why));
    }

    static boolean isKnown(String name) {
        return TABLE.containsKey(name);
    }

    static Optional<Entry> entry(String name) {
        return Optional.ofNullable(TABLE.get(name));
    }

    /** The table docs/from-nginx.md shows, generated from the entries above. */
    static String markdown() {
        StringBuilder s = new StringBuilder("| nginx | becomes |\n| --- | --- |\n");
        for (Entry e : TABLE.values()) {
            String what = switch (e.kind()) {
                case MAPPED -> e.becomes();
                case NOT_NEEDED -> "not needed: " + e.becomes();
                case NOT_MAPPED -> "**not mapped**: " + e.becomes();
            };
            s.append("| `").append(e.name()).append("` | ").append(what).append(" |\n");
        }
        return s.toString();
    }
}
