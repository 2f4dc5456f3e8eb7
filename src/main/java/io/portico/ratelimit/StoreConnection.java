package io.portico.ratelimit;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

/**
 * One open Redis store, a server (found directly or through Sentinel) or a Redis Cluster: the asynchronous
 * commands the zones send, which a cluster routes by each key's hash slot. Exactly one of the two connections is
 * set.
 */
final class StoreConnection {
    private static final String SERVER = "server";

    private final StatefulRedisConnection<byte[], byte[]> server;
    private final StatefulRedisClusterConnection<byte[], byte[]> cluster;

    private StoreConnection(StatefulRedisConnection<byte[], byte[]> server,
            StatefulRedisClusterConnection<byte[], byte[]> cluster) {
        this.server = server;
        this.cluster = cluster;
    }

    static StoreConnection of(StatefulRedisConnection<byte[], byte[]> server) {
        return new StoreConnection(server, null);
    }

    static StoreConnection of(StatefulRedisClusterConnection<byte[], byte[]> cluster) {
        return new StoreConnection(null, cluster);
    }

    boolean cluster() {
        return cluster != null;
    }

    /** The commands common to a server and a cluster (a cluster sends each to the master of its key's slot). */
    RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return server != null ? server.async() : cluster.async();
    }

    /**
     * The node that holds {@code key}, by which a zone pauses asking a failing node ({@link StoreHealth}): the
     * cluster node id of its slot's master in the topology Lettuce knows now, or one name for a single server
     * (and for a slot whose master is not known yet).
     */
    String nodeOf(byte[] key) {
        if (cluster == null) {
            return SERVER;
        }
        RedisClusterNode node = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        return node == null || node.getNodeId() == null ? SERVER : node.getNodeId();
    }

    StatefulConnection<byte[], byte[]> connection() {
        return server != null ? server : cluster;
    }

    /** The cluster connection, for the topology {@code portico check --connect} reports; null for a server. */
    StatefulRedisClusterConnection<byte[], byte[]> clusterConnection() {
        return cluster;
    }
}
