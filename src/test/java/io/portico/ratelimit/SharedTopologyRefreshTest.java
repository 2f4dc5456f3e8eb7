package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.portico.config.RateLimitZoneConfig;
import io.portico.transport.Transport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cluster store's periodic topology refresh, one per store for all its lanes ({@link SharedTopologyRefresh}),
 * still brings every lane's view up to date. A graceful failover (CLUSTER FAILOVER on a replica) with no command
 * sent meanwhile gives no lane a reason to refresh on its own (no MOVED reply, no lost connection): only the
 * periodic refresh can tell each lane who the new master is.
 */
class SharedTopologyRefreshTest {
    private static final int LOOPS = 3;

    @Test
    void everyLaneLearnsANewMasterFromTheSharedRefresh() throws Exception {
        EventLoopGroup loops = new MultiThreadIoEventLoopGroup(LOOPS, NioIoHandler.newFactory());
        try (RedisCluster cluster = RedisCluster.start()) {
            RateLimitZoneConfig zone = Zones.shared(Zones.nodelay(10, Zones.SECOND, 5), "topology", cluster.uri());
            try (RedisConnections connections = new RedisConnections(
                    new StoreLoops(loops, Transport.NIO))) {
                StoreConnection connection = connections.connection("rate-limits.topology", zone.store(),
                        Duration.ofSeconds(1));
                assertThat(connection.lanes()).hasSize(LOOPS);
                RedisCluster.Node before = cluster.masterOf(0);
                assertThat(masterPorts(connection)).containsOnly(before.clientPort());

                RedisCluster.Node replica = cluster.replicaOf(before);
                Resp.command(replica.port(), "CLUSTER", "FAILOVER");
                await().atMost(Duration.ofSeconds(15)).until(() -> cluster.masterOf(0).equals(replica));

                await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(masterPorts(connection))
                        .as("every lane's master of slot 0").containsOnly(replica.clientPort()));
            }
        } finally {
            loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
        }
    }

    /** The port of slot 0's master in each lane's view. */
    private static java.util.List<Integer> masterPorts(StoreConnection connection) {
        java.util.List<Integer> ports = new java.util.ArrayList<>();
        for (StoreConnection.Lane lane : connection.lanes()) {
            RedisClusterNode master = lane.cluster().getPartitions().getMasterBySlot(0);
            ports.add(master == null ? -1 : master.getUri().getPort());
        }
        return ports;
    }
}
