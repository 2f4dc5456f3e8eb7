package io.portico.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Reads {@code upstreams}: pools, their servers (resolved once, here, never on an event loop) and health checks. */
final class UpstreamReader {
    private UpstreamReader() {}

    static Map<String, UpstreamConfig> readAll(Node root, Config defaults) {
        Map<String, UpstreamConfig> out = new LinkedHashMap<>();
        root.entries("upstreams", defaults.getConfig("upstream"))
                .forEach((name, node) -> out.put(name, read(name, node, defaults)));
        return Map.copyOf(out);
    }

    private static UpstreamConfig read(String name, Node n, Config defaults) {
        List<UpstreamServerConfig> servers = new ArrayList<>();
        Set<UpstreamProtocol> protocols = EnumSet.noneOf(UpstreamProtocol.class);
        List<ConfigValue> list = n.list("servers");
        for (int i = 0; i < list.size(); i++) {
            ConfigValue v = list.get(i);
            String key = n.key("servers") + "." + i;
            if (v.valueType() == ConfigValueType.OBJECT) {
                Node s = n.element((ConfigObject) v, key, defaults.getConfig("upstream-server"));
                readServer(s, "address", s.string("address"), protocols).ifPresent(servers::add);
                s.finish();
            } else if (v.valueType() == ConfigValueType.STRING) {
                Node s = n.element(ConfigObject.class.cast(emptyAt(v)), key, defaults.getConfig("upstream-server"));
                readServer(s, "address", (String) v.unwrapped(), protocols).ifPresent(servers::add);
            } else {
                n.problem("servers", "wrong type (expected: \"host:port\", \"unix:/path\" or { address = ... })");
            }
        }
        if (list.isEmpty()) {
            n.problem("servers", "no server (expected: at least one \"host:port\" or \"unix:/path\")");
        } else if (!servers.isEmpty() && servers.stream().allMatch(UpstreamServerConfig::backup)) {
            n.problem("servers", "every server is a backup (expected: at least one primary server)");
        }
        if (protocols.size() > 1) {
            n.problem("servers", "mixes protocols " + protocols.stream().map(p -> p.scheme).toList()
                    + " (expected: one protocol per upstream, e.g. every server uwsgi://...)");
        }
        UpstreamProtocol protocol = protocols.isEmpty() ? UpstreamProtocol.HTTP : protocols.iterator().next();
        return settings(name, n, defaults, servers, protocol);
    }

    /**
     * The upstream a location's inline address makes ({@code proxy = "uwsgi://unix:/run/app.sock"}, as nginx users
     * write {@code proxy_pass http://127.0.0.1:5000}): one server, every setting from {@code defaults.upstream}.
     * Problems with the address are reported at {@code at}'s {@code key}.
     *
     * @return null when the address is wrong (a problem was reported)
     */
    static UpstreamConfig implicit(Node at, String key, String address, Config defaults) {
        ConfigObject empty = emptyAt(at.origin(key));
        Node s = at.element(empty, at.key(key), defaults.getConfig("upstream-server"));
        Set<UpstreamProtocol> protocols = EnumSet.noneOf(UpstreamProtocol.class);
        Optional<UpstreamServerConfig> server = readServer(s, "", address, protocols);
        if (server.isEmpty()) {
            return null;
        }
        Node n = at.element(empty, at.key(key), defaults.getConfig("upstream"));
        return settings(address, n, defaults, List.of(server.get()), protocols.iterator().next());
    }

    private static UpstreamConfig settings(String name, Node n, Config defaults, List<UpstreamServerConfig> servers,
            UpstreamProtocol protocol) {
        UpstreamConfig.Balance balance =
                n.enumValue("balance", UpstreamConfig.Balance.class, UpstreamConfig.Balance.ROUND_ROBIN);
        String hashKey = n.string("hash-key");
        int keepalive = n.integer("keepalive", 0, 100_000);
        if (protocol == UpstreamProtocol.FASTCGI && !n.userSet("keepalive")) {
            // A PHP-FPM child serves one connection until it closes, so a pooled idle connection holds a child: with
            // the HTTP default (32 per loop) two event loops' idle connections can hold every child while a third
            // connection waits for a 504. nginx's default is fastcgi_keep_conn off; so is ours unless the pool asks.
            keepalive = 0;
        }
        Duration keepaliveTimeout = n.duration("keepalive-timeout", Duration.ZERO);
        int maxConnections = n.integer("max-connections", 0, Integer.MAX_VALUE);
        if (protocol == UpstreamProtocol.FASTCGI && keepalive > 0 && maxConnections == 0) {
            // Kept connections are bounded only by max-connections (counted per connection on FastCGI, see
            // upstream.ConnectionLimit); without it every loop keeps its own and together they can hold every child
            // while a new connection waits in the app's backlog for its 504. Portico cannot see pm.max_children, so
            // it asks for the bound rather than guessing that workers * keepalive stays below it.
            n.problem("keepalive", keepalive + " on a FastCGI upstream without max-connections (expected:"
                    + " max-connections = the app's pm.max_children, or no keepalive)");
        }
        int maxQueue = n.integer("max-queue", 0, Integer.MAX_VALUE);
        Duration queueTimeout = n.duration("queue-timeout", Duration.ZERO);
        Duration connectTimeout = n.duration("connect-timeout", Duration.ofMillis(1));
        Duration sendTimeout = n.duration("send-timeout", Duration.ofMillis(1));
        Duration readTimeout = n.duration("read-timeout", Duration.ofMillis(1));
        int retries = n.integer("retries", 0, 100);
        int maxHeaderSize = (int) n.bytes("proxy-max-header-size", 1, Integer.MAX_VALUE);
        int maxHeaderCount = n.integer("proxy-max-header-count", 1, Integer.MAX_VALUE);
        Optional<HealthCheckConfig> health =
                n.object("health-check", defaults.getConfig("health-check")).map(UpstreamReader::readHealth);
        n.finish();
        return new UpstreamConfig(
                name, List.copyOf(servers), balance, hashKey, keepalive, keepaliveTimeout, maxConnections, maxQueue,
                queueTimeout, connectTimeout, sendTimeout, readTimeout, retries, health, maxHeaderSize, maxHeaderCount,
                protocol);
    }

    private static ConfigObject emptyAt(ConfigValue v) {
        return emptyAt(v.origin());
    }

    private static ConfigObject emptyAt(ConfigOrigin origin) {
        return com.typesafe.config.ConfigFactory.empty(origin.description()).root().withOrigin(origin);
    }

    /** @param field the key problems with the address are reported at ("" for the node itself) */
    private static Optional<UpstreamServerConfig> readServer(Node s, String field, String address,
            Set<UpstreamProtocol> protocols) {
        int weight = s.integer("weight", 1, 1000);
        int maxFails = s.integer("max-fails", 0, 1000);
        Duration failTimeout = s.duration("fail-timeout", Duration.ZERO);
        boolean backup = s.bool("backup");
        UpstreamProtocol protocol = UpstreamProtocol.HTTP;
        String rest = address;
        for (UpstreamProtocol p : UpstreamProtocol.values()) {
            if (address.regionMatches(true, 0, p.scheme + "://", 0, p.scheme.length() + 3)) {
                protocol = p;
                rest = address.substring(p.scheme.length() + 3);
            }
        }
        if (rest.contains("://")) {
            s.problem(field, "'" + address + "': '" + rest.substring(0, rest.indexOf("://"))
                    + "://' is not a protocol Portico speaks to upstreams (expected: http://, uwsgi://, fastcgi:// or none)");
            return Optional.empty();
        }
        protocols.add(protocol);
        Optional<UpstreamAddress> resolved = resolve(s, field, address, rest);
        return resolved.map(a -> new UpstreamServerConfig(a, weight, maxFails, failTimeout, backup));
    }

    private static Optional<UpstreamAddress> resolve(Node s, String field, String address, String text) {
        if (text.startsWith("unix:")) {
            String path = text.substring(5);
            if (path.isEmpty()) {
                s.problem(field, "'" + address + "' has no path (expected: unix:/path/to.sock)");
                return Optional.empty();
            }
            return Optional.of(new UpstreamAddress.Unix(Path.of(path).toAbsolutePath()));
        }
        try {
            Addresses.HostPort hp = Addresses.hostPort(text);
            // Resolved once at load: DNS never runs on an event loop.
            InetAddress ip = InetAddress.getByName(hp.host());
            return Optional.of(new UpstreamAddress.Tcp(hp.host(), new InetSocketAddress(ip, hp.port())));
        } catch (IllegalArgumentException e) {
            s.problem(field, "'" + address + "' " + e.getMessage()
                    + " (expected: \"host:port\" or \"unix:/path\", optionally after http://, uwsgi:// or fastcgi://)");
        } catch (UnknownHostException e) {
            s.problem(field, "'" + address + "' does not resolve "
                    + "(expected: a resolvable host name or an IP address)");
        }
        return Optional.empty();
    }

    private static HealthCheckConfig readHealth(Node h) {
        String path = h.string("path");
        if (!path.startsWith("/")) {
            h.problem("path", "'" + path + "' (expected: a path starting with /)");
        }
        Duration interval = h.duration("interval", Duration.ofMillis(10));
        Duration timeout = h.duration("timeout", Duration.ofMillis(1));
        int rise = h.integer("rise", 1, 100);
        int fall = h.integer("fall", 1, 100);
        String expect = h.string("expect");
        int min = 200;
        int max = 399;
        try {
            String[] parts = expect.split("-", -1);
            min = Integer.parseInt(parts[0].trim());
            max = parts.length == 2 ? Integer.parseInt(parts[1].trim()) : min;
            if (parts.length > 2 || min < 100 || max > 599 || min > max) {
                throw new NumberFormatException();
            }
        } catch (NumberFormatException e) {
            h.problem("expect", "'" + expect + "' (expected: a status or range such as 200 or 200-399)");
        }
        h.finish();
        return new HealthCheckConfig(path, interval, timeout, rise, fall, min, max);
    }
}
