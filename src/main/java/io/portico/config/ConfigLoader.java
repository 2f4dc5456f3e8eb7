package io.portico.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a HOCON file over {@code reference.conf} into a validated {@link PorticoConfig}, or fails with every
 * problem found, each as {@code FILE:LINE: key.path: what is wrong (expected: ...)}.
 */
public final class ConfigLoader {
    private static final Set<String> TOP_KEYS = Set.of(
            "listen", "workers", "transport", "access-log", "shutdown-timeout", "drain-delay", "pid-file", "limits",
            "static",
            "trusted-proxies", "allow-unlimited", "upstreams", "rate-limits", "limit-conn", "locations", "hosts",
            "http2", "demo-app", "defaults", "caches");

    private ConfigLoader() {}

    /**
     * Loads {@code file}; relative paths in it resolve against {@code prefix}, by default the parent of the
     * file's folder (like nginx's {@code -p}).
     */
    public static PorticoConfig load(Path file, Optional<Path> prefix) throws InvalidConfigException {
        Path absolute = file.toAbsolutePath().normalize();
        Problems problems = new Problems(file.toString());
        if (!Files.isRegularFile(absolute)) {
            problems.add(null, "", "cannot read the configuration file (expected: an existing HOCON file)");
            throw new InvalidConfigException(problems.sorted());
        }
        Config user;
        try {
            user = ConfigFactory.parseFile(
                            absolute.toFile(), ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF))
                    .resolve();
        } catch (ConfigException e) {
            problems.add(e.origin(), "", cleanMessage(e));
            throw new InvalidConfigException(problems.sorted());
        }
        Path base = prefix.map(p -> p.toAbsolutePath().normalize()).orElseGet(() -> defaultPrefix(absolute));
        return read(user, absolute, base, problems);
    }

    /** Parses configuration text, for tests and generated configs; {@code name} stands for the file in messages. */
    public static PorticoConfig parse(String text, String name, Path prefix) throws InvalidConfigException {
        Problems problems = new Problems(name);
        Config user;
        try {
            user = ConfigFactory.parseString(text, ConfigParseOptions.defaults().setOriginDescription(name))
                    .resolve();
        } catch (ConfigException e) {
            problems.add(e.origin(), "", cleanMessage(e));
            throw new InvalidConfigException(problems.sorted());
        }
        return read(user, Path.of(name).toAbsolutePath(), prefix.toAbsolutePath().normalize(), problems);
    }

    private static PorticoConfig read(Config user, Path file, Path prefix, Problems problems)
            throws InvalidConfigException {
        Config reference = ConfigFactory.parseResources(ConfigLoader.class, "/reference.conf");
        for (Map.Entry<String, ConfigValue> e : user.root().entrySet()) {
            if (!e.getKey().equals("portico")) {
                problems.add(e.getValue().origin(), e.getKey(), "unknown key (expected: settings inside portico { })");
            }
        }
        Config merged = user.withFallback(reference).resolve();
        ConfigObject userPortico = user.root().get("portico") instanceof ConfigObject o ? o : null;
        Node root = new Node(merged.getConfig("portico"), userPortico, "portico", problems);
        Config defaults = merged.getConfig("portico.defaults");
        checkDefaults(root, reference.getConfig("portico.defaults"));

        Paths paths = new Paths(prefix);
        List<ListenerConfig> listen = new ListenerReader(root, defaults, paths, Instant.now()).readAll();
        int workers = readWorkers(root);
        IoTransport transport = root.enumValue("transport", IoTransport.class, IoTransport.AUTO);
        AccessLogConfig accessLog = readAccessLog(root, paths);
        Duration shutdownTimeout = root.duration("shutdown-timeout", Duration.ZERO);
        Duration drainDelay = root.duration("drain-delay", Duration.ZERO);
        String pid = root.string("pid-file");
        Optional<Path> pidFile = pid == null || pid.equals("off") ? Optional.empty() : Optional.of(paths.resolve(pid));
        LimitsConfig limits = root.object("limits", null).map(ConfigLoader::readLimits).orElseThrow();
        StaticConfig staticConfig = root.object("static", null).map(ConfigLoader::readStatic).orElseThrow();
        List<Cidr> trusted = readCidrs(root, "trusted-proxies");
        List<Cidr> unlimited = readCidrs(root, "allow-unlimited");
        // The locations add the implicit upstreams of their inline addresses (proxy = "uwsgi://127.0.0.1:5000").
        Map<String, UpstreamConfig> upstreams = new java.util.LinkedHashMap<>(UpstreamReader.readAll(root, defaults));
        Map<String, RateLimitZoneConfig> rateLimits = RateLimitReader.readZones(root, defaults, paths);
        Map<String, LimitConnConfig> limitConn = RateLimitReader.readLimitConn(root, defaults, paths);
        Map<String, CacheZoneConfig> caches = CacheReader.readZones(root, defaults);
        List<LocationConfig> locations = new LocationReader(root, defaults, paths, upstreams, rateLimits.keySet(),
                limitConn.keySet(), caches.keySet()).readAll();
        List<HostConfig> hosts = new HostReader(root, defaults, paths, upstreams, rateLimits.keySet(),
                limitConn.keySet(), listen, caches.keySet()).readAll();
        DemoAppConfig demoApp = root.object("demo-app", null).map(n -> readDemoApp(n, paths)).orElseThrow();
        Http2Config http2 = root.object("http2", null).map(ConfigLoader::readHttp2).orElseThrow();
        root.finish(TOP_KEYS, "");

        if (!problems.isEmpty()) {
            throw new InvalidConfigException(problems.sorted());
        }
        return new PorticoConfig(
                file, prefix, listen, workers, transport, accessLog, shutdownTimeout, limits,
                staticConfig, trusted, unlimited, Map.copyOf(upstreams), rateLimits, limitConn, locations, demoApp, hosts,
                http2, drainDelay, pidFile, caches);
    }

    /** {@code defaults} holds only the sections and keys that reference.conf has there. */
    private static void checkDefaults(Node root, Config reference) {
        root.object("defaults", null).ifPresent(d -> {
            for (String section : d.keys()) {
                if (!reference.hasPath(section)) {
                    continue;
                }
                d.object(section, null).ifPresent(s -> {
                    Config ref = reference.getConfig(section);
                    for (String key : s.keys()) {
                        if (ref.hasPathOrNull(com.typesafe.config.ConfigUtil.quoteString(key))) {
                            s.isSet(key);
                        }
                    }
                    s.finish(ref.root().keySet(), "");
                });
            }
            d.finish(reference.root().keySet(), "");
        });
    }

    static Path defaultPrefix(Path configFile) {
        Path folder = configFile.getParent();
        Path parent = folder == null ? null : folder.getParent();
        return parent != null ? parent : Path.of("").toAbsolutePath();
    }

    private static Http2Config readHttp2(Node n) {
        Http2Config c = new Http2Config(
                n.integer("max-concurrent-streams", 1, 1_000_000),
                (int) n.bytes("initial-window-size", 1, Integer.MAX_VALUE),
                n.bytes("max-header-list-size", 1024, 1 << 24),
                (int) n.bytes("max-frame-size", 16384, 16_777_215),
                n.integer("max-resets", 1, 1_000_000),
                n.duration("reset-window", Duration.ofSeconds(1)),
                n.integer("max-small-continuations", 1, 10_000));
        n.finish();
        return c;
    }

    private static int readWorkers(Node root) {
        if (root.isSet("workers") && root.string("workers").equals("auto")) {
            return Runtime.getRuntime().availableProcessors();
        }
        return root.integer("workers", 1, 1024);
    }

    private static AccessLogConfig readAccessLog(Node root, Paths paths) {
        String s = root.string("access-log");
        return switch (s) {
            case "off" -> AccessLogConfig.off();
            case "stdout" -> new AccessLogConfig(AccessLogConfig.Kind.STDOUT, Optional.empty());
            default -> new AccessLogConfig(AccessLogConfig.Kind.FILE, Optional.of(paths.resolve(s)));
        };
    }

    private static LimitsConfig readLimits(Node n) {
        LimitsConfig limits = new LimitsConfig(
                (int) n.bytes("max-request-line", 256, 1 << 20),
                (int) n.bytes("max-header-size", 1024, 1 << 20),
                n.integer("max-header-count", 1, 10_000),
                n.bytes("max-body-size", 0, Long.MAX_VALUE),
                n.duration("client-header-timeout", Duration.ofMillis(1)),
                n.duration("client-body-timeout", Duration.ofMillis(1)),
                n.duration("send-timeout", Duration.ofMillis(1)),
                n.duration("keepalive-timeout", Duration.ZERO),
                n.integer("keepalive-requests", 1, Integer.MAX_VALUE),
                n.integer("max-connections", 0, Integer.MAX_VALUE),
                n.bytes("client-body-min-rate", 0, 1L << 30));
        n.finish();
        return limits;
    }

    private static StaticConfig readStatic(Node n) {
        Node cache = n.object("cache", null).orElseThrow();
        long maxSize = cache.bytes("max-size", 0, Long.MAX_VALUE);
        long maxFileSize = cache.bytes("max-file-size", 0, Integer.MAX_VALUE);
        Duration revalidate = cache.duration("revalidate", Duration.ZERO);
        long sendfileFrom = cache.bytes("sendfile-from", 0, Long.MAX_VALUE);
        cache.finish();
        StaticConfig.FollowSymlinks follow =
                n.enumValue("follow-symlinks", StaticConfig.FollowSymlinks.class,
                        StaticConfig.FollowSymlinks.INSIDE_ROOT);
        Map<String, String> mediaTypes = new LinkedHashMap<>();
        n.object("media-types", null).ifPresent(m -> {
            for (String ext : m.keys()) {
                String type = m.string(ext);
                if (!type.contains("/")) {
                    m.problem(ext, "'" + type + "' is not a media type (expected: type/subtype)");
                }
                mediaTypes.put(ext.toLowerCase(), type);
            }
        });
        n.finish();
        return new StaticConfig(maxSize, maxFileSize, revalidate, follow, Map.copyOf(mediaTypes), sendfileFrom);
    }

    static List<Cidr> readCidrs(Node root, String key) {
        List<Cidr> out = new ArrayList<>();
        for (String s : root.strings(key)) {
            try {
                out.add(Cidr.parse(s));
            } catch (IllegalArgumentException e) {
                root.problem(key, e.getMessage() + " (expected: a CIDR such as 10.0.0.0/8 or ::1/128)");
            }
        }
        return List.copyOf(out);
    }

    private static DemoAppConfig readDemoApp(Node n, Paths paths) {
        boolean enabled = n.bool("enabled");
        String listenText = n.string("listen");
        ListenAddress listen = new ListenAddress("127.0.0.1", 5000);
        Optional<Path> unix = Optional.empty();
        if (listenText.startsWith("unix:")) {
            unix = Optional.of(paths.resolve(listenText.substring(5)));
        } else {
            try {
                listen = Addresses.listen(listenText);
            } catch (IllegalArgumentException e) {
                n.problem("listen", "'" + listenText + "' " + e.getMessage()
                        + " (expected: \"host:port\" or \"unix:/path\")");
            }
        }
        int workers = n.integer("workers", 1, 1024);
        boolean keepalive = n.bool("keepalive");
        Path root = paths.resolve(n.string("root"));
        n.finish();
        return new DemoAppConfig(enabled, unix.isPresent() ? null : listen, workers, keepalive, root, unix);
    }

    private static String cleanMessage(ConfigException e) {
        String m = e.getMessage();
        // Typesafe Config prefixes the origin ("file: 12: "); the problem line carries it already.
        if (e.origin() != null) {
            String d = e.origin().description();
            if (m.startsWith(d + ": ")) {
                m = m.substring(d.length() + 2);
            }
        }
        return m;
    }
}
