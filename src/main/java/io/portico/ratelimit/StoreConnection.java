package io.portico.ratelimit;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.netty.util.concurrent.EventExecutor;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One open Redis store, a server (found directly or through Sentinel) or a Redis Cluster: the asynchronous
 * commands the zones send, which a cluster routes by each key's hash slot. One connection per lane
 * ({@link StoreLanes}): a zone asks through the connection on the event loop that asks, whose replies that loop
 * reads; a thread that is no lane's loop asks through the first.
 */
final class StoreConnection {
    private static final String SERVER = "server";

    /** One lane's connection: exactly one of the two is set. */
    record Lane(EventExecutor loop, StatefulRedisConnection<byte[], byte[]> server,
            StatefulRedisClusterConnection<byte[], byte[]> cluster) {
        StatefulConnection<byte[], byte[]> connection() {
            return server != null ? server : cluster;
        }
    }

    private final Lane[] lanes;
    private final RedisClusterAsyncCommands<byte[], byte[]>[] commands;
    /** By lane, for the identity scan in {@link #lane}; a null entry is Lettuce's own thread. */
    private final EventExecutor[] loops;

    @SuppressWarnings("unchecked")
    StoreConnection(List<Lane> lanes) {
        this.lanes = lanes.toArray(Lane[]::new);
        this.commands = new RedisClusterAsyncCommands[this.lanes.length];
        this.loops = new EventExecutor[this.lanes.length];
        for (int i = 0; i < this.lanes.length; i++) {
            Lane lane = this.lanes[i];
            commands[i] = lane.server != null ? lane.server.async() : lane.cluster.async();
            loops[i] = lane.loop;
        }
    }

    boolean cluster() {
        return lanes[0].cluster != null;
    }

    /**
     * The lane of {@code asker}, the event loop that asks (a handful of loops: a scan by identity is cheaper than a
     * map); the first lane for any other thread or none.
     */
    int lane(Executor asker) {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i] == asker) {
                return i;
            }
        }
        return 0;
    }

    /** The lane of the calling thread when it is a lane's loop (a reply, a loop giving back), else the first. */
    int currentLane() {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i] != null && loops[i].inEventLoop()) {
                return i;
            }
        }
        return 0;
    }

    /**
     * The commands common to a server and a cluster (a cluster sends each to the master of its key's slot), on
     * lane {@code lane}.
     */
    RedisClusterAsyncCommands<byte[], byte[]> commands(int lane) {
        return commands[lane];
    }

    /**
     * The node that holds {@code key}, by which a zone pauses asking a failing node ({@link StoreHealth}): the
     * cluster node id of its slot's master in the topology lane {@code lane}'s client knows now, or one name for a
     * single server (and for a slot whose master is not known yet).
     */
    String nodeOf(byte[] key, int lane) {
        StatefulRedisClusterConnection<byte[], byte[]> cluster = lanes[lane].cluster;
        if (cluster == null) {
            return SERVER;
        }
        RedisClusterNode node = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
        return node == null || node.getNodeId() == null ? SERVER : node.getNodeId();
    }

    Lane[] lanes() {
        return lanes;
    }

    /** The first lane's cluster connection, for the topology {@code portico check --connect} reports; null for a server. */
    StatefulRedisClusterConnection<byte[], byte[]> clusterConnection() {
        return lanes[0].cluster;
    }
}
