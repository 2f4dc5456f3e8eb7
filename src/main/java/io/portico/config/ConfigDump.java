package io.portico.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import java.util.stream.Collectors;

/** Renders a validated config as HOCON with every default filled in and every path absolute ({@code portico check}). */
public final class ConfigDump {
    private final StringBuilder out = new StringBuilder();
    private int depth;

    private ConfigDump() {}

    public static String render(PorticoConfig c) {
        ConfigDump d = new ConfigDump();
        d.open("portico");
        if (c.listen().stream().noneMatch(l -> l.secure() || l.http2() || l.proxyProtocol().isPresent())) {
            d.kv("listen", list(c.listen().stream().map(l -> l.address().toString()).toList()));
        } else {
            d.line("listen = [");
            d.depth++;
            c.listen().forEach(d::listener);
            d.depth--;
            d.line("]");
        }
        d.kv("workers", c.workers());
        d.kv("transport", c.transport().configName());
        d.kv("access-log", str(c.accessLog().toString()));
        d.kv("shutdown-timeout", dur(c.shutdownTimeout()));
        d.kv("drain-delay", dur(c.drainDelay()));
        d.kv("pid-file", str(c.pidFile().map(Path::toString).orElse("off")));
        LimitsConfig l = c.limits();
        d.open("limits");
        d.kv("max-request-line", l.maxRequestLine());
        d.kv("max-header-size", l.maxHeaderSize());
        d.kv("max-header-count", l.maxHeaderCount());
        d.kv("max-body-size", l.maxBodySize());
        d.kv("client-header-timeout", dur(l.clientHeaderTimeout()));
        d.kv("client-body-timeout", dur(l.clientBodyTimeout()));
        d.kv("client-body-min-rate", l.clientBodyMinRate());
        d.kv("send-timeout", dur(l.sendTimeout()));
        d.kv("keepalive-timeout", dur(l.keepaliveTimeout()));
        d.kv("keepalive-requests", l.keepaliveRequests());
        d.kv("max-connections", l.maxConnections());
        d.close();
        StaticConfig s = c.staticFiles();
        d.open("static");
        d.open("cache");
        d.kv("max-size", s.cacheMaxSize());
        d.kv("max-file-size", s.cacheMaxFileSize());
        d.kv("revalidate", dur(s.revalidate()));
        d.kv("sendfile-from", s.cacheSendfileFrom());
        d.close();
        d.kv("follow-symlinks", enumName(s.followSymlinks()));
        d.kv("media-types", map(s.mediaTypes()));
        d.close();
        d.kv("trusted-proxies", list(c.trustedProxies().stream().map(Cidr::toString).toList()));
        d.kv("allow-unlimited", list(c.allowUnlimited().stream().map(Cidr::toString).toList()));
        d.open("upstreams");
        c.upstreams().values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(d::upstream);
        d.close();
        d.open("rate-limits");
        c.rateLimits().values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(d::zone);
        d.close();
        d.open("limit-conn");
        c.limitConn().values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(z -> {
            d.open(z.name());
            d.kv("key", str(z.key()));
            d.kv("max", z.max());
            d.kv("status", z.status());
            d.kv("ipv6-prefix", z.ipv6Prefix());
            d.store(z.store());
            d.kv("store-lease", dur(z.lease()));
            d.close();
        });
        d.close();
        if (!c.caches().isEmpty()) {
            d.open("caches");
            c.caches().values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(z -> {
                d.open(name(z.name()));
                d.kv("max-size", z.maxSize());
                d.kv("inactive", dur(z.inactive()));
                d.close();
            });
            d.close();
        }
        d.line("locations = [");
        d.depth++;
        c.locations().forEach(d::location);
        d.depth--;
        d.line("]");
        if (!c.hosts().isEmpty()) {
            d.line("hosts = [");
            d.depth++;
            for (HostConfig h : c.hosts()) {
                d.line("{");
                d.depth++;
                d.kv("names", list(h.names()));
                d.kv("listen", list(h.listen().stream().map(ListenAddress::toString).toList()));
                d.kv("default", h.isDefault());
                d.line("locations = [");
                d.depth++;
                h.locations().forEach(d::location);
                d.depth--;
                d.line("]");
                d.depth--;
                d.line("}");
            }
            d.depth--;
            d.line("]");
        }
        DemoAppConfig a = c.demoApp();
        Http2Config h2 = c.http2();
        d.open("http2");
        d.kv("max-concurrent-streams", h2.maxConcurrentStreams());
        d.kv("initial-window-size", h2.initialWindowSize());
        d.kv("max-header-list-size", h2.maxHeaderListSize());
        d.kv("max-frame-size", h2.maxFrameSize());
        d.kv("max-resets", h2.maxResets());
        d.kv("reset-window", dur(h2.resetWindow()));
        d.kv("max-small-continuations", h2.maxSmallContinuations());
        d.close();
        d.open("demo-app");
        d.kv("enabled", a.enabled());
        d.kv("listen", str(a.unixSocket().map(u -> "unix:" + u).orElseGet(() -> a.listen().toString())));
        d.kv("workers", a.workers());
        d.kv("keepalive", a.keepalive());
        d.kv("root", str(a.root().toString()));
        d.close();
        d.close();
        return d.out.toString();
    }

    private void listener(ListenerConfig l) {
        if (l.tls().isEmpty() && !l.http2() && l.proxyProtocol().isEmpty()) {
            line(str(l.address().toString()));
            return;
        }
        line("{");
        depth++;
        kv("address", str(l.address().toString()));
        kv("http2", l.http2() ? "on" : "off");
        if (l.proxyProtocol().isPresent()) {
            ProxyProtocolConfig p = l.proxyProtocol().get();
            kv("proxy-protocol", "true");
            kv("trusted", list(p.trusted().stream().map(Cidr::toString).toList()));
            kv("proxy-protocol-timeout", dur(p.timeout()));
        }
        if (l.tls().isEmpty()) {
            depth--;
            line("}");
            return;
        }
        TlsConfig t = l.tls().get();
        open("tls");
        line("certificates = [");
        depth++;
        for (TlsCertificate cert : t.certificates()) {
            line("{ cert = " + str(cert.certFile().toString()) + ", key = " + str(cert.keyFile().toString()) + " }"
                    + "  # " + String.join(", ", cert.names()) + ", until " + cert.leaf().getNotAfter().toInstant());
        }
        depth--;
        line("]");
        kv("protocols", list(t.protocols()));
        kv("ciphers", list(t.ciphers()));
        kv("handshake-timeout", dur(t.handshakeTimeout()));
        kv("session-timeout", dur(t.sessionTimeout()));
        kv("session-cache-size", t.sessionCacheSize());
        kv("provider", enumName(t.provider()));
        close();
        depth--;
        line("}");
    }

    private void upstream(UpstreamConfig u) {
        open(name(u.name())); // an implicit upstream is named by its address: quoted
        String scheme = u.protocol() == UpstreamProtocol.HTTP ? "" : u.protocol().scheme + "://";
        line("servers = [");
        depth++;
        for (UpstreamServerConfig s : u.servers()) {
            line("{ address = " + str(scheme + s.address()) + ", weight = " + s.weight() + ", max-fails = "
                    + s.maxFails() + ", fail-timeout = " + dur(s.failTimeout()) + ", backup = " + s.backup() + " }");
        }
        depth--;
        line("]");
        kv("balance", enumName(u.balance()));
        kv("hash-key", str(u.hashKey()));
        kv("keepalive", u.keepalive());
        kv("keepalive-timeout", dur(u.keepaliveTimeout()));
        kv("max-connections", u.maxConnections());
        kv("max-queue", u.maxQueue());
        kv("queue-timeout", dur(u.queueTimeout()));
        kv("connect-timeout", dur(u.connectTimeout()));
        kv("send-timeout", dur(u.sendTimeout()));
        kv("read-timeout", dur(u.readTimeout()));
        kv("retries", u.retries());
        kv("proxy-max-header-size", u.proxyMaxHeaderSize());
        kv("proxy-max-header-count", u.proxyMaxHeaderCount());
        u.healthCheck().ifPresent(h -> {
            open("health-check");
            kv("path", str(h.path()));
            kv("interval", dur(h.interval()));
            kv("timeout", dur(h.timeout()));
            kv("rise", h.rise());
            kv("fall", h.fall());
            kv("expect", str(h.expectMin() == h.expectMax() ? "" + h.expectMin()
                    : h.expectMin() + "-" + h.expectMax()));
            close();
        });
        close();
    }

    private void zone(RateLimitZoneConfig z) {
        open(z.name());
        kv("key", str(z.key()));
        kv("rate", z.requests() + (z.per().equals(Duration.ofSeconds(1)) ? "r/s" : "r/m"));
        kv("burst", z.burst());
        kv("nodelay", z.nodelay());
        kv("delay", z.delay());
        kv("status", z.status());
        kv("max-clients", z.maxClients());
        kv("dry-run", z.dryRun());
        kv("ipv6-prefix", z.ipv6Prefix());
        kv("headers", z.headers().text());
        store(z.store());
        close();
    }

    private void store(RateLimitZoneConfig.Store store) {
        kv("store", store.shared() ? str(withoutPassword(store.redis())) : "local");
        kv("store-timeout", dur(store.timeout()));
        kv("on-store-failure", enumName(store.onFailure()));
        kv("store-failure-threshold", store.failureThreshold());
        kv("store-failure-pause", dur(store.failurePause()));
        kv("store-ca", str(store.ca() == null ? "" : store.ca().toString()));
    }

    /** A store URI as printed: a password in it is a secret, and the dump is shared in bug reports. */
    private static String withoutPassword(java.net.URI uri) {
        String authority = uri.getRawAuthority();
        int at = authority == null ? -1 : authority.lastIndexOf('@');
        return at < 0 ? uri.toString() : uri.toString().replace(authority, "***" + authority.substring(at));
    }

    private void location(LocationConfig l) {
        line("{");
        depth++;
        String matchKey = switch (l.match().kind()) {
            case EXACT -> "exact";
            case REGEX -> "regex";
            case PREFIX -> "path";
        };
        kv(matchKey, str(l.match().value()));
        if (l.target() instanceof TargetConfig.Static s) {
                kv(s.alias() ? "alias" : "root", str(s.dir() + "/"));
                kv("index", list(s.index()));
                kv("try-files", list(s.tryFiles()));
                kv("autoindex", s.autoindex());
                kv("precompressed", s.precompressed());
                kv("allow-dotfiles", s.allowDotfiles());
                kv("expires", s.expires().map(ConfigDump::dur).orElse("null"));
                kv("cache-control", s.cacheControl().map(ConfigDump::str).orElse("null"));
        } else if (l.target() instanceof TargetConfig.Proxy p) {
                kv("proxy", p.uriPrefix().map(u -> str("http://" + p.upstream() + u)).orElse(name(p.upstream())));
                kv("host", p.hostFromUpstream() ? "upstream" : "client");
                kv("proxy-request-buffering", p.requestBuffering());
                kv("proxy-response-buffering", p.responseBuffering());
                kv("client-body-buffer-size", p.clientBodyBufferSize());
                kv("proxy-buffers", p.proxyBuffers());
                kv("via", p.via());
                kv("ignore-client-abort", p.ignoreClientAbort());
                kv("forwarded-headers", list(p.forwardedHeaders().stream().map(h -> h.header).toList()));
                kv("set-request-headers", map(p.setRequestHeaders()));
                kv("set-response-headers", map(p.setResponseHeaders()));
                if (!p.params().isEmpty()) {
                    kv("params", map(p.params()));
                }
                p.fastcgiRoot().ifPresent(r -> kv("fastcgi-root", str(r.toString())));
                if (!p.fastcgiIndex().equals("index.php")) {
                    kv("fastcgi-index", str(p.fastcgiIndex()));
                }
        } else if (l.target() instanceof TargetConfig.Metrics m) {
            kv("metrics", m.format());
        } else if (l.target() instanceof TargetConfig.Status st) {
            kv("status", st.kind());
        } else if (l.target() instanceof TargetConfig.Health) {
            kv("health", true);
        } else if (l.target() instanceof TargetConfig.Return r) {
            kv("return", "{ status = " + r.status()
                    + r.location().map(x -> ", location = " + str(x.text())).orElse("")
                    + (r.body().text().isEmpty() ? "" : ", body = " + str(r.body().text())) + " }");
        }
        kv("rate-limit", list(l.rateLimits()));
        kv("limit-conn", list(l.limitConn()));
        kv("allow", list(l.allow().stream().map(Cidr::toString).toList()));
        kv("deny", list(l.deny().stream().map(Cidr::toString).toList()));
        l.maxBodySize().ifPresent(size -> kv("max-body-size", size));
        l.cache().ifPresent(this::cache);
        depth--;
        line("}");
    }

    private void cache(CacheConfig c) {
        open("cache");
        kv("zone", name(c.zone()));
        List<String> valid = new java.util.ArrayList<>();
        c.valid().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> valid.add(e.getKey() + " = " + dur(e.getValue())));
        c.validAny().ifPresent(d -> valid.add("any = " + dur(d)));
        kv("valid", "{ " + String.join(", ", valid) + (valid.isEmpty() ? "}" : " }"));
        kv("key", str(c.key().text()));
        kv("methods", list(c.methods().stream().sorted().toList()));
        kv("max-object-size", c.maxObjectSize());
        kv("honor-cache-control", c.honorCacheControl());
        kv("use-stale", list(CacheConfig.STALE_CONDITIONS.stream().filter(c.useStale()::contains).toList()));
        kv("lock-timeout", dur(c.lockTimeout()));
        kv("bypass", list(c.bypass().stream().map(TextTemplate::text).toList()));
        close();
    }

    private void open(String name) {
        line(name + " {");
        depth++;
    }

    private void close() {
        depth--;
        line("}");
    }

    private void kv(String key, Object value) {
        line(key + " = " + value);
    }

    private void line(String text) {
        out.append("  ".repeat(depth)).append(text).append('\n');
    }

    /** A name as a HOCON key or value: bare when it is a plain word, else quoted. */
    private static String name(String s) {
        return s.matches("[A-Za-z0-9_-]+") ? s : str(s);
    }

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> b.append(ch);
            }
        }
        return b.append('"').toString();
    }

    private static String list(List<String> items) {
        return items.stream().map(ConfigDump::str).collect(Collectors.joining(", ", "[", "]"));
    }

    private static String map(Map<String, ?> m) {
        if (m.isEmpty()) {
            return "{}";
        }
        return m.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> str(e.getKey()) + " = " + str(String.valueOf(e.getValue())))
                .collect(Collectors.joining(", ", "{ ", " }"));
    }

    static String dur(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    private static String enumName(Enum<?> e) {
        return e.name().toLowerCase().replace('_', '-');
    }

}
