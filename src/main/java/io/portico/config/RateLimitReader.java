package io.portico.config;

import com.typesafe.config.Config;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code rate-limits} zones and {@code limit-conn} zones. */
final class RateLimitReader {
    private static final Pattern RATE = Pattern.compile("(\\d+)\\s*r/(s|m)");
    private static final Pattern KEY_PART =
            Pattern.compile("client-ip|path|uri|host|header:[A-Za-z0-9!#$%&'*.^_`|~-]+");

    private RateLimitReader() {}

    static Map<String, RateLimitZoneConfig> readZones(Node root, Config defaults, Paths paths) {
        Map<String, RateLimitZoneConfig> out = new LinkedHashMap<>();
        root.entries("rate-limits", defaults.getConfig("rate-limit")).forEach((name, n) -> {
            String key = readKey(n);
            long requests = 1;
            Duration per = Duration.ofSeconds(1);
            String rate = n.string("rate");
            Matcher m = RATE.matcher(rate.trim());
            if (m.matches()) {
                try {
                    requests = Long.parseLong(m.group(1));
                } catch (NumberFormatException e) {
                    requests = 0;
                }
                per = m.group(2).equals("s") ? Duration.ofSeconds(1) : Duration.ofMinutes(1);
                if (requests < 1 || requests > 1_000_000_000L) {
                    n.problem("rate", "'" + rate + "' is out of range (expected: 1r/s .. 1000000000r/s)");
                    requests = 1;
                }
            } else if (!rate.isEmpty()) {
                n.problem("rate", "'" + rate + "' is not a rate (expected: Nr/s or Nr/m, e.g. 50r/s)");
            }
            int burst = n.integer("burst", 0, 1_000_000);
            boolean nodelay = n.bool("nodelay");
            int delay = n.integer("delay", 0, 1_000_000);
            if (nodelay && n.userSet("delay") && delay > 0) {
                n.problem("delay", "cannot be combined with nodelay = true (expected: one of nodelay or delay)");
            }
            if (delay > burst) {
                n.problem("delay", delay + " is larger than burst " + burst + " (expected: <= burst)");
            }
            int status = n.integer("status", 400, 599);
            long maxClients = n.integer("max-clients", 1, Integer.MAX_VALUE);
            boolean dryRun = n.bool("dry-run");
            int ipv6Prefix = n.integer("ipv6-prefix", 1, 128);
            RateLimitZoneConfig.Headers headers = readHeaders(n);
            RateLimitZoneConfig.Store store = readStore(n, paths);
            if (store.shared() && headers == RateLimitZoneConfig.Headers.ALWAYS) {
                n.problem("headers", "always needs the state of every passing request, which a Redis store does not"
                        + " read back (expected: on-reject or off with store = redis://...)");
            }
            n.finish();
            out.put(name, new RateLimitZoneConfig(name, key, requests, per, burst, nodelay, delay, status, maxClients,
                    dryRun, ipv6Prefix, headers, store));
        });
        return Map.copyOf(out);
    }

    static Map<String, LimitConnConfig> readLimitConn(Node root, Config defaults, Paths paths) {
        Map<String, LimitConnConfig> out = new LinkedHashMap<>();
        root.entries("limit-conn", defaults.getConfig("limit-conn")).forEach((name, n) -> {
            String key = readKey(n);
            int max = n.integer("max", 1, Integer.MAX_VALUE);
            int status = n.integer("status", 400, 599);
            int ipv6Prefix = n.integer("ipv6-prefix", 1, 128);
            RateLimitZoneConfig.Store store = readStore(n, paths);
            Duration lease = n.duration("store-lease", Duration.ofMillis(300));
            if (store.shared() && lease.compareTo(store.timeout().multipliedBy(3)) < 0) {
                n.problem("store-lease", lease.toMillis() + "ms is shorter than 3 x store-timeout (expected: >= "
                        + store.timeout().multipliedBy(3).toMillis() + "ms, so a renewal can be late and still land)");
            }
            n.finish();
            out.put(name, new LimitConnConfig(name, key, max, status, ipv6Prefix, store, lease));
        });
        return Map.copyOf(out);
    }

    /**
     * local, a redis:// or rediss:// URI with a host, redis-sentinel://HOST:PORT[,HOST:PORT...]#MASTER (Lettuce's
     * syntax: password, database, options), or redis-cluster:// / rediss-cluster://HOST:PORT[,HOST:PORT...]; with
     * the failure threshold and pause, and the CA file for TLS.
     */
    private static RateLimitZoneConfig.Store readStore(Node n, Paths paths) {
        String text = n.string("store").trim();
        Duration timeout = n.duration("store-timeout", Duration.ofMillis(1));
        RateLimitZoneConfig.Failure onFailure =
                n.enumValue("on-store-failure", RateLimitZoneConfig.Failure.class, RateLimitZoneConfig.Failure.LOCAL);
        int threshold = n.integer("store-failure-threshold", 1, 1_000_000);
        Duration pause = n.duration("store-failure-pause", Duration.ZERO);
        if (pause.compareTo(Duration.ofMinutes(10)) > 0) {
            n.problem("store-failure-pause", pause.toSeconds() + "s (expected: <= 10m, so a Redis back is used again)");
        }
        String caText = n.string("store-ca").trim();
        java.nio.file.Path ca = caText.isEmpty() ? null : paths.resolve(caText);
        if (ca != null && !(java.nio.file.Files.isRegularFile(ca) && java.nio.file.Files.isReadable(ca))) {
            n.problem("store-ca", ca + (java.nio.file.Files.exists(ca) ? " cannot be read" : " does not exist")
                    + " (expected: a PEM file of the CA certificates that sign the Redis servers')");
            ca = null;
        }
        if (text.equals("local")) {
            if (ca != null) {
                n.problem("store-ca", "is set but the store is local (expected: store = rediss://... or"
                        + " rediss-cluster://...)");
            }
            return new RateLimitZoneConfig.Store(null, timeout, onFailure, threshold, pause, null);
        }
        URI uri = null;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            // reported below
        }
        boolean valid = uri != null && switch (String.valueOf(uri.getScheme())) {
            case "redis", "rediss" -> uri.getHost() != null;
            // several sentinels make a registry-based authority, which java.net.URI does not split into hosts
            case "redis-sentinel" -> uri.getRawAuthority() != null && uri.getFragment() != null;
            case "redis-cluster", "rediss-cluster" -> uri.getRawAuthority() != null && clusterNodes(uri)
                    && (uri.getRawPath() == null || uri.getRawPath().isEmpty()) && uri.getRawFragment() == null;
            default -> false;
        };
        if (!valid) {
            n.problem("store", "'" + text + "' (expected: local, redis://HOST:PORT, rediss://HOST:PORT,"
                    + " redis-sentinel://HOST:PORT[,HOST:PORT...]#MASTER or"
                    + " redis-cluster://HOST:PORT[,HOST:PORT...] (rediss-cluster:// for TLS))");
            return new RateLimitZoneConfig.Store(null, timeout, onFailure, threshold, pause, null);
        }
        boolean tls = uri.getScheme().startsWith("rediss");
        if (ca != null && !tls) {
            n.problem("store-ca", "is set but " + uri.getScheme() + ":// does not use TLS (expected: rediss://... or"
                    + " rediss-cluster://...)");
        }
        return new RateLimitZoneConfig.Store(uri, timeout, onFailure, threshold, pause, ca);
    }

    /** Whether a cluster URI's authority is {@code [userinfo@]HOST:PORT[,HOST:PORT...]}, each port given. */
    private static boolean clusterNodes(URI uri) {
        String authority = uri.getRawAuthority();
        String hosts = authority.substring(authority.lastIndexOf('@') + 1);
        for (String node : hosts.split(",", -1)) {
            int colon = node.lastIndexOf(':');
            if (colon <= 0 || !node.substring(colon + 1).matches("\\d{1,5}")
                    || Integer.parseInt(node.substring(colon + 1)) > 65535) {
                return false;
            }
        }
        return true;
    }

    /** on-reject | always | off; true and false, the older form, mean on-reject and off. */
    private static RateLimitZoneConfig.Headers readHeaders(Node n) {
        String text = n.string("headers").trim().toLowerCase(java.util.Locale.ROOT);
        return switch (text) {
            case "true", "on-reject" -> RateLimitZoneConfig.Headers.ON_REJECT;
            case "always" -> RateLimitZoneConfig.Headers.ALWAYS;
            case "false", "off" -> RateLimitZoneConfig.Headers.OFF;
            default -> {
                n.problem("headers", "'" + text + "' (expected: on-reject, always or off)");
                yield RateLimitZoneConfig.Headers.ON_REJECT;
            }
        };
    }

    private static String readKey(Node n) {
        String key = n.string("key");
        for (String part : key.split("\\+", -1)) {
            if (!KEY_PART.matcher(part.trim()).matches()) {
                n.problem("key", "'" + key + "' has an unknown part '" + part
                        + "' (expected: client-ip, path, uri, host or header:NAME, joined with +)");
                break;
            }
        }
        return key;
    }
}
