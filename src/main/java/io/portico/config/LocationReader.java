package io.portico.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/** Reads {@code locations}: one match and one target each, plus the zones and options of defaults.location. */
final class LocationReader {
    private static final List<String> MATCHES = List.of("path", "exact", "regex");
    private static final List<String> TARGETS =
            List.of("alias", "root", "proxy", "return", "metrics", "status", "health");
    private static final String TARGET_LIST = String.join(", ", TARGETS);
    private static final Set<String> STATIC_KEYS = Set.of(
            "index", "try-files", "autoindex", "precompressed", "allow-dotfiles", "expires", "cache-control");
    private static final Set<String> PROXY_KEYS = Set.of(
            "host", "merge-slashes", "proxy-request-buffering", "proxy-response-buffering", "streaming",
            "client-body-buffer-size", "proxy-buffers", "via", "forwarded-headers", "set-request-headers",
            "set-response-headers", "params", "fastcgi-root", "fastcgi-index", "ignore-client-abort");

    private static final List<Cidr> LOOPBACK = List.of(Cidr.parse("127.0.0.0/8"), Cidr.parse("::1/128"));

    private final Node root;
    private final Config defaults;
    private final Paths paths;
    /** The named upstreams, and the implicit ones of inline addresses, which this reader adds. */
    private final Map<String, UpstreamConfig> upstreams;
    private final Config allDefaults;
    private final Set<String> zones;
    private final Set<String> connZones;
    private final Set<String> cacheZones;

    LocationReader(
            Node root, Config defaults, Paths paths, Map<String, UpstreamConfig> upstreams, Set<String> zones,
            Set<String> connZones, Set<String> cacheZones) {
        this.cacheZones = cacheZones;
        this.root = root;
        this.allDefaults = defaults;
        this.defaults = defaults.getConfig("location");
        this.paths = paths;
        this.upstreams = upstreams;
        this.zones = zones;
        this.connZones = connZones;
    }

    List<LocationConfig> readAll() {
        List<LocationConfig> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        List<ConfigValue> list = root.list("locations");
        for (int i = 0; i < list.size(); i++) {
            ConfigValue v = list.get(i);
            if (v.valueType() != ConfigValueType.OBJECT) {
                root.problem("locations", "element " + i + " is not an object (expected: { path = \"/\", ... })");
                continue;
            }
            Node n = root.element((ConfigObject) v, root.key("locations") + "." + i, defaults);
            read(n).ifPresent(l -> {
                if (!seen.add(l.match().toString())) {
                    n.problem(l.match().kind().name().toLowerCase().replace("prefix", "path"),
                            "duplicate location '" + l.match().value() + "' (expected: each match once)");
                }
                out.add(l);
            });
        }
        return List.copyOf(out);
    }

    private Optional<LocationConfig> read(Node n) {
        List<String> matchKeys = MATCHES.stream().filter(n::userSet).toList();
        List<String> targetKeys = TARGETS.stream().filter(n::userSet).toList();
        // Every match and target key given counts as read: too many of them is one problem, reported below.
        matchKeys.forEach(n::isSet);
        targetKeys.forEach(n::isSet);
        LocationConfig.Match match = readMatch(n, matchKeys);
        TargetConfig target = readTarget(n, targetKeys);
        List<String> rateLimits = names(n, "rate-limit", zones, "rate-limits");
        List<String> limitConn = names(n, "limit-conn", connZones, "limit-conn");
        List<Cidr> allow = ConfigLoader.readCidrs(n, "allow");
        List<Cidr> deny = ConfigLoader.readCidrs(n, "deny");
        if ((target instanceof TargetConfig.Status || target instanceof TargetConfig.Metrics)
                && allow.isEmpty() && deny.isEmpty()) {
            // the status page and the metrics name upstream servers, zones and locations: local only unless allow
            // or deny says otherwise (nginx's stub_status has no default; this is the stricter choice)
            allow = LOOPBACK;
        }
        OptionalLong maxBodySize = n.isSet("max-body-size")
                ? OptionalLong.of(n.bytes("max-body-size", 0, Long.MAX_VALUE)) : OptionalLong.empty();
        Optional<CacheConfig> cache =
                CacheReader.read(n, allDefaults, cacheZones, target instanceof TargetConfig.Proxy);
        Set<String> known = new HashSet<>(STATIC_KEYS);
        known.addAll(PROXY_KEYS);
        known.add("cache");
        known.addAll(MATCHES);
        known.addAll(TARGETS);
        CompressionConfig compression = CompressionReader.read(n);
        n.finish(known, kindOf(targetKeys));
        if (match == null || target == null) {
            return Optional.empty();
        }
        String origin = n.origin().description();
        return Optional.of(new LocationConfig(
                match, target, rateLimits, limitConn, allow, deny, origin, maxBodySize, compression, cache));
    }

    /**
     * What kind of location a key means nothing on, from the target key the user wrote rather than the target
     * read: a target that could not be read (an unsupported proxy scheme) is still a proxy location.
     */
    private static String kindOf(List<String> targetKeys) {
        if (targetKeys.size() != 1) {
            return "on a location without exactly one target";
        }
        return switch (targetKeys.get(0)) {
            case "alias", "root" -> "on a static location";
            case "proxy" -> "on a proxy location";
            case "metrics" -> "on a metrics location";
            case "status" -> "on a status location";
            case "health" -> "on a health location";
            default -> "on a return location";
        };
    }

    private LocationConfig.Match readMatch(Node n, List<String> keys) {
        if (keys.size() != 1) {
            n.problem(keys.isEmpty() ? "path" : keys.get(1),
                    keys.isEmpty() ? "location has no match (expected: one of path, exact, regex)"
                            : "location has several matches " + keys
                                    + " (expected: exactly one of path, exact, regex)");
            return null;
        }
        String key = keys.get(0);
        String value = n.string(key);
        switch (key) {
            case "regex" -> {
                try {
                    Pattern.compile(value);
                } catch (PatternSyntaxException e) {
                    n.problem(key, "'" + value + "' is not a valid regex: " + e.getDescription());
                    return null;
                }
                return new LocationConfig.Match(LocationConfig.Match.Kind.REGEX, value);
            }
            case "exact" -> {
                return startsWithSlash(n, key, value)
                        ? new LocationConfig.Match(LocationConfig.Match.Kind.EXACT, value) : null;
            }
            default -> {
                return startsWithSlash(n, key, value)
                        ? new LocationConfig.Match(LocationConfig.Match.Kind.PREFIX, value) : null;
            }
        }
    }

    /** Requests are matched on their normalized path, so a location spelled otherwise would never match. */
    private static boolean startsWithSlash(Node n, String key, String value) {
        if (!value.startsWith("/")) {
            n.problem(key, "'" + value + "' (expected: a path starting with /)");
            return false;
        }
        String normalized = RequestPath.normalize(value);
        if (!value.equals(normalized)) {
            String expected = normalized != null ? normalized
                    : "a path without spaces, control bytes, '#' or '\\', that stays below /";
            n.problem(key, "'" + value + "' would never match a normalized request path (expected: " + expected + ")");
            return false;
        }
        return true;
    }

    private TargetConfig readTarget(Node n, List<String> keys) {
        if (keys.size() != 1) {
            n.problem(keys.isEmpty() ? "" : keys.get(1),
                    keys.isEmpty() ? "location has no target (expected: one of " + TARGET_LIST + ")"
                            : "location has several targets " + keys + " (expected: exactly one of " + TARGET_LIST
                                    + ")");
            return null;
        }
        return switch (keys.get(0)) {
            case "alias", "root" -> readStatic(n, keys.get(0));
            case "proxy" -> readProxy(n);
            case "metrics" -> readMetrics(n);
            case "status" -> readStatus(n);
            case "health" -> readHealth(n);
            default -> readReturn(n);
        };
    }

    private TargetConfig.Static readStatic(Node n, String key) {
        Path dir = paths.resolve(n.string(key));
        if (!Files.isDirectory(dir)) {
            n.problem(key, "directory " + dir + " does not exist (expected: an existing directory)");
        }
        List<String> index = n.strings("index");
        List<String> tryFiles = n.strings("try-files");
        for (int i = 0; i < tryFiles.size(); i++) {
            String t = tryFiles.get(i);
            if (t.startsWith("=")) {
                tryFilesStatus(n, t, i == tryFiles.size() - 1);
            } else if (t.startsWith("@")) {
                if (i != tryFiles.size() - 1) {
                    n.problem("try-files", "'" + t + "' must come last (expected: a fallback @upstream at the end)");
                } else if (!upstreams.containsKey(t.substring(1))) {
                    n.problem("try-files", "'" + t + "' names no upstream (expected: one of " + named() + ")");
                }
            } else if (!t.startsWith("$uri") && !t.startsWith("/")) {
                n.problem("try-files", "'" + t + "' (expected: $uri, $uri/..., /path, a last @upstream or =CODE)");
            }
        }
        boolean autoindex = n.bool("autoindex");
        boolean precompressed = n.bool("precompressed");
        boolean dotfiles = n.bool("allow-dotfiles");
        Optional<Duration> expires = n.isSet("expires")
                ? Optional.of(n.duration("expires", Duration.ZERO))
                : Optional.empty();
        Optional<String> cacheControl = n.optionalString("cache-control");
        return new TargetConfig.Static(
                dir, key.equals("alias"), index, tryFiles, autoindex, expires, cacheControl, precompressed, dotfiles);
    }

    /** nginx's {@code try_files ... =404}: the answer when no earlier entry exists, so only last, and an error. */
    private static void tryFilesStatus(Node n, String entry, boolean last) {
        if (!last) {
            n.problem("try-files", "'" + entry + "' must come last (expected: =CODE as the final entry)");
            return;
        }
        String code = entry.substring(1);
        if (!code.matches("[0-9]{3}") || Integer.parseInt(code) < 400 || Integer.parseInt(code) > 599) {
            n.problem("try-files", "'" + entry + "' is not an error status (expected: =400 to =599, e.g. =404)");
        }
    }

    private TargetConfig.Proxy readProxy(Node n) {
        String proxy = n.string("proxy");
        if (unsupportedScheme(n, proxy)) {
            PROXY_KEYS.forEach(n::isSet); // its proxy options would be fine on a proxy it could speak to
            return null;
        }
        String upstream = proxy;
        Optional<String> uriPrefix = Optional.empty();
        UpstreamProtocol scheme = null; // none written: a name
        if (proxy.startsWith("http://")) {
            scheme = UpstreamProtocol.HTTP;
            String rest = proxy.substring(7);
            // nginx's proxy_pass http://unix:/path has no URI part here: the whole rest is the socket
            int slash = rest.startsWith("unix:") ? -1 : rest.indexOf('/');
            upstream = slash < 0 ? rest : rest.substring(0, slash);
            uriPrefix = slash < 0 ? Optional.empty() : Optional.of(rest.substring(slash));
        } else if (proxy.startsWith("uwsgi://")) {
            scheme = UpstreamProtocol.UWSGI; // like uwsgi_pass, no URI part: PATH_INFO is the request's path
            upstream = proxy.substring(8);
        } else if (proxy.startsWith("fastcgi://")) {
            scheme = UpstreamProtocol.FASTCGI; // like fastcgi_pass: no URI part
            upstream = proxy.substring(10);
        }
        UpstreamConfig named = upstreams.get(upstream);
        if (named == null && scheme != null && upstream.contains(":")) {
            upstream = implicitUpstream(n, scheme, upstream);
            named = upstream == null ? null : upstreams.get(upstream);
        } else if (named == null) {
            n.problem("proxy", "'" + upstream + "' names no upstream (expected: one of " + named()
                    + ", or an address such as \"http://127.0.0.1:5000\" or \"uwsgi://unix:/run/app.sock\")");
        } else if (scheme != null && named.protocol() != scheme) {
            n.problem("proxy", "'" + proxy + "': upstream " + upstream + " speaks " + named.protocol().scheme
                    + " (expected: " + named.protocol().scheme + "://" + upstream + " or " + upstream + ")");
        }
        String host = n.string("host");
        if (!host.equals("client") && !host.equals("upstream")) {
            n.problem("host", "'" + host + "' (expected: client or upstream)");
        }
        boolean streaming = n.bool("streaming");
        boolean requestBuffering = n.bool("proxy-request-buffering") && !streaming;
        boolean responseBuffering = n.bool("proxy-response-buffering") && !streaming;
        long bodyBuffer = n.bytes("client-body-buffer-size", 0, Integer.MAX_VALUE);
        long buffers = n.bytes("proxy-buffers", 0, Integer.MAX_VALUE);
        boolean via = n.bool("via");
        Set<ForwardedHeader> forwarded = forwardedHeaders(n);
        Map<String, TextTemplate> req = headers(n, "set-request-headers");
        Map<String, TextTemplate> resp = headers(n, "set-response-headers");
        Map<String, TextTemplate> params = params(n, named);
        Optional<Path> fastcgiRoot = n.optionalString("fastcgi-root").map(paths::resolve);
        String fastcgiIndex = n.string("fastcgi-index");
        if (named != null && named.protocol() != UpstreamProtocol.FASTCGI) {
            for (String key : List.of("fastcgi-root", "fastcgi-index")) {
                if (n.userSet(key)) {
                    n.problem(key, "upstream " + named.name() + " speaks " + named.protocol().scheme
                            + " (expected: " + key + " on a fastcgi upstream's location)");
                }
            }
        }
        if (fastcgiIndex.isEmpty() || fastcgiIndex.contains("/")) {
            n.problem("fastcgi-index", "'" + fastcgiIndex + "' (expected: a file name such as index.php)");
        }
        return new TargetConfig.Proxy(
                upstream == null ? proxy : upstream, uriPrefix, host.equals("upstream"), requestBuffering,
                responseBuffering, bodyBuffer, buffers, via, forwarded, req, resp, n.bool("merge-slashes"), params,
                fastcgiRoot, fastcgiIndex, n.bool("ignore-client-abort"));
    }

    /**
     * The implicit upstream of an inline address, with the defaults; one per address, shared by the locations that
     * name it. Its name is the address as written after an http:// scheme, and with its scheme otherwise.
     */
    private String implicitUpstream(Node n, UpstreamProtocol scheme, String address) {
        String name = scheme == UpstreamProtocol.HTTP ? address : scheme.scheme + "://" + address;
        if (!upstreams.containsKey(name)) {
            UpstreamConfig u = UpstreamReader.implicit(n, "proxy", name, allDefaults);
            if (u == null) {
                return null;
            }
            upstreams.put(name, u);
        }
        return name;
    }

    /** nginx's uwsgi_param and fastcgi_param: CGI variables of a request, meaningless to HTTP. */
    private static Map<String, TextTemplate> params(Node n, UpstreamConfig upstream) {
        Map<String, TextTemplate> params = new LinkedHashMap<>();
        n.object("params", null).ifPresent(h -> {
            for (String name : h.keys()) {
                if (!name.matches("[A-Za-z0-9_.-]+")) {
                    h.problem(name, "'" + name + "' is not a variable name (expected: letters, digits, _ . -)");
                }
                params.put(name, template(h, name, h.string(name)));
            }
        });
        // Set on the location itself only: defaults.location.params may serve the uwsgi locations among others.
        if (!params.isEmpty() && n.userSet("params") && upstream != null
                && upstream.protocol() == UpstreamProtocol.HTTP) {
            n.problem("params", "upstream " + upstream.name() + " speaks " + upstream.protocol().scheme
                    + ", which has no request variables (expected: params on a uwsgi or fastcgi upstream's"
                    + " location; set-request-headers for http)");
        }
        return Collections.unmodifiableMap(params);
    }

    /** The named upstreams, for messages: the implicit ones are not names anyone wrote. */
    private java.util.TreeSet<String> named() {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        upstreams.keySet().stream().filter(k -> !k.contains(":")).forEach(names::add);
        return names;
    }

    /** A {@code scheme://} other than http, uwsgi and fastcgi: says what is missing and what to write instead. */
    private static boolean unsupportedScheme(Node n, String proxy) {
        int colon = proxy.indexOf("://");
        if (colon < 0 || proxy.startsWith("http://") || proxy.startsWith("uwsgi://")
                || proxy.startsWith("fastcgi://")) {
            return false;
        }
        String scheme = proxy.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
        String why = switch (scheme) {
            case "https" -> "TLS to upstreams is not supported yet (expected: proxy = NAME or \"http://NAME/prefix/\")";
            default -> "'" + scheme + "://' is not a protocol Portico speaks to upstreams"
                    + " (expected: proxy = NAME, \"http://NAME/prefix/\" or \"uwsgi://NAME\")";
        };
        n.problem("proxy", "'" + proxy + "': " + why);
        return true;
    }

    private static Set<ForwardedHeader> forwardedHeaders(Node n) {
        Set<ForwardedHeader> out = EnumSet.noneOf(ForwardedHeader.class);
        for (String name : n.strings("forwarded-headers")) {
            ForwardedHeader.named(name).ifPresentOrElse(out::add, () -> n.problem("forwarded-headers", "'" + name
                    + "' (expected: some of " + Arrays.stream(ForwardedHeader.values()).map(h -> h.header).toList()
                    + ")"));
        }
        return Collections.unmodifiableSet(out);
    }

    private static Map<String, TextTemplate> headers(Node n, String key) {
        Map<String, TextTemplate> out = new LinkedHashMap<>();
        n.object(key, null).ifPresent(h -> {
            for (String name : h.keys()) {
                out.put(name, template(h, name, h.string(name)));
            }
        });
        return Map.copyOf(out);
    }

    /** The text compiled into its variables; an unknown one is a problem of {@code key}. */
    private static TextTemplate template(Node n, String key, String text) {
        try {
            return TextTemplate.parse(text);
        } catch (IllegalArgumentException e) {
            n.problem(key, "'" + text + "': " + e.getMessage());
            return TextTemplate.literal(text);
        }
    }

    private static TargetConfig.Metrics readMetrics(Node n) {
        String format = n.string("metrics");
        if (!format.equals("prometheus")) {
            n.problem("metrics", "'" + format + "' (expected: prometheus)");
            return null;
        }
        return new TargetConfig.Metrics(format);
    }

    private static TargetConfig.Status readStatus(Node n) {
        String kind = n.string("status");
        if (!kind.equals("page")) {
            n.problem("status", "'" + kind + "' (expected: page)");
            return null;
        }
        return new TargetConfig.Status(kind);
    }

    private static TargetConfig.Health readHealth(Node n) {
        if (!n.bool("health")) {
            n.problem("health", "false (expected: true, or no health key)");
            return null;
        }
        return new TargetConfig.Health();
    }

    private TargetConfig.Return readReturn(Node n) {
        if (n.valueType("return") == ConfigValueType.NUMBER) {
            return new TargetConfig.Return(n.integer("return", 100, 599), Optional.empty(), TextTemplate.literal(""));
        }
        Optional<Node> obj = n.object("return", null);
        if (obj.isEmpty()) {
            return null;
        }
        Node r = obj.get();
        int status = r.integer("status", 100, 599);
        Optional<TextTemplate> location = r.optionalString("location").map(l -> template(r, "location", l));
        TextTemplate body = template(r, "body", r.optionalString("body").orElse(""));
        if (status >= 300 && status < 400 && location.isEmpty()) {
            r.problem("status", status + " needs a location (expected: location = \"https://...\")");
        }
        r.finish();
        return new TargetConfig.Return(status, location, body);
    }

    private static List<String> names(Node n, String key, Set<String> known, String section) {
        List<String> names = n.strings(key);
        for (String name : names) {
            if (!known.contains(name)) {
                n.problem(key, "'" + name + "' names no zone (expected: one of "
                        + new java.util.TreeSet<>(known) + " from " + section + ")");
            }
        }
        return List.copyOf(names);
    }
}
