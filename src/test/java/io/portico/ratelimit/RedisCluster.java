package io.portico.ratelimit;

import io.portico.testing.ExternalProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster on loopback for the tests of shared zones: three masters and three replicas
 * ({@code redis-server --cluster-enabled yes}, joined by {@code redis-cli --cluster create --cluster-replicas 1}),
 * on free ports, each node's files in a directory of its own that {@link #close} deletes. A node timeout of 1 s
 * makes a failover take about two. With {@link Tls}, clients and the cluster bus speak TLS on each node's TLS port,
 * while the plain port stays for the test's own commands ({@link Resp}).
 */
public final class RedisCluster implements AutoCloseable {
    /** The files of a TLS cluster: the node certificate and key, and the CA its clients trust. */
    public record Tls(Path cert, Path key, Path ca) {}

    /** One node: its process, plain port, TLS port (0 without TLS). */
    record Node(ExternalProcess process, int port, int tlsPort) {
        int clientPort() {
            return tlsPort != 0 ? tlsPort : port;
        }
    }

    private final List<Node> nodes = new ArrayList<>();
    private final Tls tls;

    private RedisCluster(Tls tls) {
        this.tls = tls;
    }

    public static RedisCluster start() {
        return start(null);
    }

    /** Six nodes, joined; returns once every node says {@code cluster_state:ok}. */
    public static RedisCluster start(Tls tls) {
        RedisServer.requireInstalled("redis-server", "redis-cli");
        RedisCluster cluster = new RedisCluster(tls);
        try {
            for (int i = 0; i < 6; i++) {
                cluster.nodes.add(cluster.startNode());
            }
            cluster.create();
            cluster.awaitOk(cluster.nodes, 20);
            cluster.awaitReplicas(20);
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.close();
            throw new IllegalStateException("the Redis Cluster did not form", e);
        }
    }

    private Node startNode() throws IOException {
        int tlsPort = tls == null ? 0 : ExternalProcess.freePort();
        ExternalProcess process = ExternalProcess.builder("redis-cluster-node")
                .command((nodeDir, port) -> {
                    List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                            "--bind", "127.0.0.1", "--cluster-enabled", "yes", "--cluster-config-file",
                            nodeDir.resolve("nodes.conf").toString(), "--cluster-node-timeout", "1000",
                            "--dir", nodeDir.toString(), "--save", "", "--appendonly", "no", "--loglevel", "warning"));
                    if (tls != null) {
                        command.addAll(List.of("--tls-port", Integer.toString(tlsPort), "--tls-cert-file",
                                tls.cert().toString(), "--tls-key-file", tls.key().toString(), "--tls-ca-cert-file",
                                tls.ca().toString(), "--tls-cluster", "yes", "--tls-replication", "yes",
                                "--tls-auth-clients", "no"));
                    }
                    return command;
                })
                .ready(port -> Resp.command(port, "PING").equals("PONG"))
                .deadline(java.time.Duration.ofSeconds(10))
                .start();
        return new Node(process, process.port(), tlsPort);
    }

    private void create() throws IOException {
        List<String> command = new ArrayList<>(List.of("redis-cli"));
        if (tls != null) {
            command.addAll(List.of("--tls", "--cacert", tls.ca().toString()));
        }
        command.addAll(List.of("--cluster", "create"));
        nodes.forEach(n -> command.add("127.0.0.1:" + n.clientPort()));
        command.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
        Process create = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(create.getInputStream().readAllBytes());
        try {
            if (!create.waitFor(30, TimeUnit.SECONDS) || create.exitValue() != 0) {
                throw new IOException("redis-cli --cluster create failed:\n" + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /**
     * Waits until every master has its replica online (in sync): a failover needs one, and {@code cluster create}
     * returns before the replicas have their first copy.
     */
    private void awaitReplicas(int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try {
                int synced = 0;
                for (Node n : nodes) {
                    String info = Resp.command(n.port(), "INFO", "replication");
                    if (info.contains("role:master") && info.contains("slave0:") && info.contains("state=online")) {
                        synced++;
                    }
                }
                if (synced == 3) {
                    return;
                }
            } catch (IOException e) {
                // a node still starting
            }
            pause(50);
        }
        throw new IllegalStateException("the replicas are not in sync after " + seconds + " s");
    }

    /** Waits until every node of {@code of} says the cluster is ok and knows the same masters. */
    void awaitOk(List<Node> of, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try {
                boolean ok = true;
                for (Node n : of) {
                    ok &= Resp.command(n.port(), "CLUSTER", "INFO").contains("cluster_state:ok");
                }
                if (ok) {
                    return;
                }
            } catch (IOException e) {
                // a node still starting
            }
            pause(50);
        }
        throw new IllegalStateException("the cluster is not ok after " + seconds + " s");
    }

    /**
     * Waits until a replica has taken over {@code slot} from {@code dead} (the live nodes agree the cluster is ok and
     * another master serves it).
     */
    void awaitFailover(Node dead, int slot, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try {
                if (!masterOf(slot).equals(dead)) {
                    awaitOk(live(), seconds);
                    return;
                }
            } catch (IOException | IllegalStateException e) {
                // no master for the slot yet
            }
            pause(20);
        }
        throw new IllegalStateException("no failover of slot " + slot + " after " + seconds + " s");
    }

    /** The store URI naming every node (TLS: {@code rediss-cluster://} on the TLS ports). */
    public String uri() {
        return (tls != null ? "rediss-cluster://" : "redis-cluster://") + nodes.stream()
                .map(n -> "127.0.0.1:" + n.clientPort()).collect(Collectors.joining(","));
    }

    /** The store URI naming only the first node: the client finds the others. */
    String seedUri() {
        return (tls != null ? "rediss-cluster://" : "redis-cluster://") + "127.0.0.1:" + nodes.get(0).clientPort();
    }

    List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** The slot of {@code key}, as the cluster computes it. */
    int slot(String key) throws IOException {
        return Integer.parseInt(Resp.command(any().port(), "CLUSTER", "KEYSLOT", key));
    }

    /** The live master that serves {@code slot} now. */
    Node masterOf(int slot) throws IOException {
        for (String line : Resp.command(any().port(), "CLUSTER", "NODES").split("\n")) {
            String[] f = line.split(" ");
            if (!f[2].contains("master") || f[2].contains("fail")) {
                continue;
            }
            for (int i = 8; i < f.length; i++) {
                String[] range = f[i].split("-");
                if (range[0].startsWith("[")) {
                    continue;
                }
                int from = Integer.parseInt(range[0]);
                int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                if (slot >= from && slot <= to) {
                    int clientPort = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
                    return nodes.stream().filter(n -> n.clientPort() == clientPort).findFirst().orElseThrow();
                }
            }
        }
        throw new IllegalStateException("no master serves slot " + slot);
    }

    /** A live replica of {@code master}, as the cluster says. */
    Node replicaOf(Node master) throws IOException {
        String[] lines = Resp.command(master.port(), "CLUSTER", "NODES").split("\n");
        String masterId = null;
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f[2].contains("myself")) {
                masterId = f[0];
            }
        }
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f[2].contains("slave") && !f[2].contains("fail") && f[3].equals(masterId)) {
                int clientPort = Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1, f[1].indexOf('@')));
                return nodes.stream().filter(n -> n.clientPort() == clientPort).findFirst().orElseThrow();
            }
        }
        throw new IllegalStateException("no live replica of " + master);
    }

    /** The keys in the cluster that match {@code pattern}, from every master. */
    List<String> keys(String pattern) throws IOException {
        List<String> keys = new ArrayList<>();
        for (Node n : live()) {
            if (Resp.command(n.port(), "ROLE").startsWith("master")) {
                String reply = Resp.command(n.port(), "KEYS", pattern);
                if (!reply.isEmpty()) {
                    keys.addAll(Arrays.asList(reply.split("\n")));
                }
            }
        }
        return keys;
    }

    /** Kills {@code node} (SIGKILL, as a crash), and returns the nodes still running. */
    List<Node> kill(Node node) {
        node.process().kill();
        return live();
    }

    List<Node> live() {
        return nodes.stream().filter(n -> n.process().isAlive()).toList();
    }

    private Node any() {
        return live().get(0);
    }

    /** Stops every node and deletes their files. */
    @Override
    public void close() {
        nodes.forEach(n -> n.process().close());
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
