package io.portico.ratelimit;

import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

/**
 * One open Redis store, a server (found directly or through Sentinel) or a Redis Cluster: the asynchronous
 * commands the zones send, which a cluster routes by each key's hash slot. Exactly one of the two connections is
 * set.
 */
final class StoreConnection {
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

    /** Bucket4j's compare-and-swap buckets on this store. */
    Bucket4jLettuce.LettuceBasedProxyManagerBuilder<byte[]> buckets() {
        return server != null ? Bucket4jLettuce.casBasedBuilder(server) : Bucket4jLettuce.casBasedBuilder(cluster);
    }

    StatefulConnection<byte[], byte[]> connection() {
        return server != null ? server : cluster;
    }

    /** The cluster connection, for the topology {@code portico check --connect} reports; null for a server. */
    StatefulRedisClusterConnection<byte[], byte[]> clusterConnection() {
        return cluster;
    }
}
