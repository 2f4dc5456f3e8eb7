package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The balancer passes over a server at {@code max-connections} (nginx's max_conns) and queues only when all are. */
class MaxConnectionsBalancingTest {

    private static UpstreamPool pool(UpstreamConfig.Balance balance, int maxConnections, int... weights) {
        List<UpstreamServerConfig> servers = new ArrayList<>();
        for (int i = 0; i < weights.length; i++) {
            servers.add(new UpstreamServerConfig(
                    new UpstreamAddress.Tcp("10.0.0." + (i + 1), new InetSocketAddress("127.0.0.1", 9000 + i)),
                    weights[i], 0, Duration.ofSeconds(10), false));
        }
        return new UpstreamPool(new UpstreamConfig("app", servers, balance, "$request_uri", 4, Duration.ofSeconds(60),
                maxConnections, 8, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), 1, Optional.empty(), 16 * 1024, 100), System::nanoTime);
    }

    /** Takes every permit of {@code s} (they are free, so each is granted at once, no event loop involved). */
    private static void fill(UpstreamServer s, int permits) {
        for (int i = 0; i < permits; i++) {
            boolean[] granted = {false};
            s.limit().acquire(null, new ConnectionLimit.Grant() {
                @Override
                public void granted() {
                    granted[0] = true;
                }

                @Override
                public void rejected() {}

                @Override
                public void handed(UpstreamConnection c) {
                    throw new AssertionError("a limit per request hands no connection");
                }
            });
            assertThat(granted[0]).isTrue();
        }
        assertThat(s.limit().full()).isTrue();
    }

    private static void drain(UpstreamServer s, int permits) {
        for (int i = 0; i < permits; i++) {
            s.limit().release();
        }
    }

    private static Selection selection(int i) {
        try {
            return new Selection("/k" + i, InetAddress.getByName("10." + (i / 256 % 256) + "." + (i % 256) + ".1"),
                    List.of());
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static Map<Integer, Integer> distribution(UpstreamPool pool, int n) {
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < n; i++) {
            UpstreamServer s = pool.select(selection(i));
            counts.merge(s == null ? -1 : s.index(), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void roundRobinSpreadsByWeightOverTheServersWithFreeConnections() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.ROUND_ROBIN, 2, 3, 2, 1);
        List<UpstreamServer> s = pool.servers();
        assertThat(distribution(pool, 6000)).isEqualTo(Map.of(0, 3000, 1, 2000, 2, 1000));

        fill(s.get(0), 2);
        // The heaviest server is full: the other two share its traffic by their own weights, 2:1.
        assertThat(distribution(pool, 6000)).isEqualTo(Map.of(1, 4000, 2, 2000));

        fill(s.get(1), 2);
        assertThat(distribution(pool, 6000)).isEqualTo(Map.of(2, 6000));

        fill(s.get(2), 2);
        // Every server is full: the request is still given a server, by weight, and queues for its permit there.
        assertThat(distribution(pool, 6000)).isEqualTo(Map.of(0, 3000, 1, 2000, 2, 1000));

        drain(s.get(0), 1);
        assertThat(distribution(pool, 600)).isEqualTo(Map.of(0, 600));
    }

    @ParameterizedTest
    @EnumSource(UpstreamConfig.Balance.class)
    void everyPolicyPassesOverAFullServerAndQueuesOnlyWhenAllAreFull(UpstreamConfig.Balance balance) {
        UpstreamPool pool = pool(balance, 1, 2, 1, 1);
        List<UpstreamServer> s = pool.servers();
        Map<Integer, Integer> free = distribution(pool, 2000);
        assertThat(free).as("all free").containsOnlyKeys(0, 1, 2);

        fill(s.get(0), 1);
        Map<Integer, Integer> oneFull = distribution(pool, 2000);
        assertThat(oneFull).as("server 0 full").containsOnlyKeys(1, 2);
        // Its share goes elsewhere; the others keep at least what they had.
        assertThat(oneFull.get(1)).isGreaterThanOrEqualTo(free.get(1));
        assertThat(oneFull.get(2)).isGreaterThanOrEqualTo(free.get(2));

        fill(s.get(1), 1);
        fill(s.get(2), 1);
        assertThat(distribution(pool, 2000)).as("all full").doesNotContainKey(-1).containsKey(0);
    }

    @Test
    void aFullPrimaryTierGoesToTheBackupsFirstAsNginxDoes() {
        List<UpstreamServerConfig> servers = List.of(
                new UpstreamServerConfig(new UpstreamAddress.Tcp("p", new InetSocketAddress("127.0.0.1", 1)), 1, 0,
                        Duration.ofSeconds(10), false),
                new UpstreamServerConfig(new UpstreamAddress.Tcp("b", new InetSocketAddress("127.0.0.1", 2)), 1, 0,
                        Duration.ofSeconds(10), true));
        UpstreamPool pool = new UpstreamPool(new UpstreamConfig("app", servers, UpstreamConfig.Balance.ROUND_ROBIN,
                "$request_uri", 4, Duration.ofSeconds(60), 1, 8, Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ofSeconds(1), 1, Optional.empty(), 16 * 1024, 100), System::nanoTime);
        UpstreamServer primary = pool.servers().get(0);
        UpstreamServer backup = pool.servers().get(1);
        assertThat(pool.select(selection(0))).isSameAs(primary);
        fill(primary, 1);
        assertThat(pool.select(selection(0))).isSameAs(backup);
        fill(backup, 1);
        assertThat(pool.select(selection(0))).isSameAs(primary);
    }

    @Test
    void withMaxConnectionsZeroAServerIsNeverFull() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.ROUND_ROBIN, 0, 1, 1);
        UpstreamServer a = pool.servers().get(0);
        for (int i = 0; i < 100; i++) {
            a.limit().acquire(null, new ConnectionLimit.Grant() {
                @Override
                public void granted() {}

                @Override
                public void rejected() {
                    throw new AssertionError("rejected");
                }

                @Override
                public void handed(UpstreamConnection c) {
                    throw new AssertionError("a limit per request hands no connection");
                }
            });
        }
        assertThat(a.limit().full()).isFalse();
        assertThat(distribution(pool, 100)).isEqualTo(Map.of(0, 50, 1, 50));
    }
}
