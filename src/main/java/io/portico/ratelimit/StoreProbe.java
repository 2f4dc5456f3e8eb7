package io.portico.ratelimit;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.portico.config.LimitConnConfig;
import io.portico.config.PorticoConfig;
import io.portico.config.RateLimitZoneConfig;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code portico check --connect}: reaches each Redis store a configuration names, as the server would at start,
 * and says what answered (server, version, mode: standalone, sentinel or cluster, and a cluster's nodes) and
 * whether a decision's commands ran there, or why not. Runs on the caller's thread and waits (a command-line
 * tool, never on an event loop).
 */
public final class StoreProbe {
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    /** One store: its URI without password, the zones on it, and what was found ({@code ok}) or why not. */
    public record Result(String store, List<String> zones, boolean ok, String found) {}

    private StoreProbe() {}

    /** Every distinct store of {@code config}, in the order the zones name them; empty when all are local. */
    public static List<Result> probe(PorticoConfig config) {
        Map<URI, RateLimitZoneConfig.Store> stores = new LinkedHashMap<>();
        Map<URI, List<String>> zones = new LinkedHashMap<>();
        Map<URI, Set<RedisScript>> scripts = new LinkedHashMap<>();
        if (config.rateLimits() != null) {
            for (RateLimitZoneConfig z : config.rateLimits().values()) {
                add(stores, zones, scripts, z.store(), "rate-limits." + z.name(), RedisZoneStore.SCRIPTS);
            }
        }
        if (config.limitConn() != null) {
            for (LimitConnConfig z : config.limitConn().values()) {
                add(stores, zones, scripts, z.store(), "limit-conn." + z.name(), RedisConnStore.SCRIPTS);
            }
        }
        List<Result> results = new ArrayList<>();
        stores.forEach((uri, store) -> results.add(probe(store, zones.get(uri), List.copyOf(scripts.get(uri)))));
        return results;
    }

    private static void add(Map<URI, RateLimitZoneConfig.Store> stores, Map<URI, List<String>> zones,
            Map<URI, Set<RedisScript>> scripts, RateLimitZoneConfig.Store store, String zone,
            List<RedisScript> itsScripts) {
        if (store.shared()) {
            stores.putIfAbsent(store.redis(), store);
            zones.computeIfAbsent(store.redis(), u -> new ArrayList<>()).add(zone);
            scripts.computeIfAbsent(store.redis(), u -> new LinkedHashSet<>()).addAll(itsScripts);
        }
    }

    /**
     * Connects, asks INFO, then runs a decision's commands as a start does ({@link StoreWarmUp}: {@code scripts},
     * the zones' on this store, loaded on each node that decides, then a script by key, EVALSHA, through the path
     * a zone's decision takes). A store that answers INFO but refuses these (an ACL without EVALSHA or SCRIPT, a
     * read-only replica) would leave every decision to on-store-failure: the check fails, as the start would.
     */
    private static Result probe(RateLimitZoneConfig.Store store, List<String> zones, List<RedisScript> scripts) {
        String name = RedisConnections.redacted(store.redis());
        try (RedisConnections connections = new RedisConnections()) {
            StoreConnection connection;
            try {
                connection = connections.connection(zones.get(0), store, COMMAND_TIMEOUT);
            } catch (IllegalStateException e) {
                return new Result(name, zones, false, e.getMessage());
            }
            String info = connection.commands(0).info("server").get(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            String version = field(info, "redis_version");
            StringBuilder found = new StringBuilder("Redis ").append(version);
            if (connection.cluster()) {
                int masters = 0;
                int replicas = 0;
                for (RedisClusterNode node : connection.clusterConnection().getPartitions()) {
                    if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
                        masters++;
                    } else if (node.is(RedisClusterNode.NodeFlag.REPLICA)) {
                        replicas++;
                    }
                }
                found.append(", cluster: ").append(masters + replicas).append(" nodes (").append(masters)
                        .append(" masters, ").append(replicas).append(" replicas)");
            } else if (store.redis().getScheme().equals("redis-sentinel")) {
                found.append(", sentinel: master ").append(store.redis().getFragment()).append(" (")
                        .append(field(info, "redis_mode")).append(')');
            } else {
                found.append(", ").append(field(info, "redis_mode"));
            }
            if (store.tls()) {
                found.append(", TLS").append(store.ca() != null ? " (certificate checked against " + store.ca() + ")"
                        : " (certificate checked against the JDK's trust store)");
            }
            try {
                StoreWarmUp.warm(zones.get(0), connection, scripts);
            } catch (IllegalStateException e) {
                return new Result(name, zones, false, found + "; but a decision's commands failed ("
                        + RedisConnections.reason(e.getCause() != null ? e.getCause() : e)
                        + "): every decision would be on-store-failure's");
            }
            found.append(connection.cluster() ? "; a decision's commands ran on each master"
                    : "; a decision's commands ran").append(" (scripts loaded, EVALSHA by key)");
            return new Result(name, zones, true, found.toString());
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return new Result(name, zones, false, "connected, but INFO failed (" + RedisConnections.reason(e) + ")");
        }
    }

    /** A field of INFO's {@code name:value} lines, or "?" when missing. */
    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "?";
    }
}
