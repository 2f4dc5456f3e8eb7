package io.portico.ratelimit;

import io.portico.server.PorticoServer;
import io.portico.testing.TestServers;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a shared zone on a Redis Cluster costs the cluster while idle: a server with {@code WORKERS} event loops
 * and one zone on a cluster of three masters and three replicas, then, over {@code SECONDS}, the connections each
 * node accepted ({@code INFO stats}: total_connections_received) and the commands it ran ({@code INFO
 * commandstats}), summed over the nodes and given per 5 s (one topology refresh period). No request is sent: what
 * is counted is the periodic topology refresh.
 *
 * <p>Run: {@code mvn -q -o test-compile && java -cp target/test-classes:target/classes:$(cat cp.txt)
 * io.portico.ratelimit.TopologyRefreshCost [WORKERS] [SECONDS]} (cp.txt from {@code mvn dependency:build-classpath}).
 */
public final class TopologyRefreshCost {
    private TopologyRefreshCost() {}

    public static void main(String[] args) throws Exception {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        try (RedisCluster cluster = RedisCluster.start()) {
            PorticoServer server = TestServers.start("workers = " + workers + "\n"
                    + RedisClusterZoneTest.config("cost", cluster.uri(), "rate = 10r/s, burst = 5, nodelay = true"));
            try {
                Thread.sleep(6_000); // past the first period: start-up's connections are not counted
                for (RedisCluster.Node node : cluster.nodes()) {
                    Resp.command(node.clientPort(), "CONFIG", "RESETSTAT");
                }
                Thread.sleep(seconds * 1_000L);
                long connections = 0;
                java.util.Map<String, Long> commands = new java.util.TreeMap<>();
                for (RedisCluster.Node node : cluster.nodes()) {
                    connections += field(Resp.command(node.clientPort(), "INFO", "stats"),
                            "total_connections_received:(\\d+)");
                    Matcher m = Pattern.compile("cmdstat_([a-z|]+):calls=(\\d+)")
                            .matcher(Resp.command(node.clientPort(), "INFO", "commandstats"));
                    while (m.find()) {
                        commands.merge(m.group(1), Long.parseLong(m.group(2)), Long::sum);
                    }
                }
                commands.remove("config|resetstat");
                commands.merge("info", -(long) cluster.nodes().size(), Long::sum); // this tool's INFO stats
                double periods = seconds / 5.0;
                System.out.printf("workers=%d over %d s, 6 nodes: connections accepted %d (%.1f per 5 s)%n", workers,
                        seconds, connections, connections / periods);
                commands.forEach((command, calls) -> System.out.printf("  %s: %d (%.1f per 5 s)%n", command, calls,
                        calls / periods));
            } finally {
                server.close();
            }
        }
    }

    private static long field(String text, String pattern) {
        Matcher m = Pattern.compile(pattern).matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
