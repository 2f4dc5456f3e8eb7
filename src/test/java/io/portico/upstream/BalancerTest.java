package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BalancerTest {
    private final AtomicLong clock = new AtomicLong();

    private UpstreamPool pool(UpstreamConfig.Balance balance, int... weights) {
        List<UpstreamServerConfig> servers = new ArrayList<>();
        for (int i = 0; i < weights.length; i++) {
            servers.add(new UpstreamServerConfig(
                    new UpstreamAddress.Tcp("10.0.0." + (i + 1), new InetSocketAddress("127.0.0.1", 9000 + i)),
                    weights[i], 2, Duration.ofSeconds(10), false));
        }
        return pool(balance, servers);
    }

    private UpstreamPool pool(UpstreamConfig.Balance balance, List<UpstreamServerConfig> servers) {
        return new UpstreamPool(new UpstreamConfig("app", servers, balance, "$request_uri", 4, Duration.ofSeconds(60),
                0, 0, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), 1,
                Optional.empty(), 16 * 1024, 100), clock::get);
    }

    private static Selection any(String key) {
        return new Selection(key, InetAddress.getLoopbackAddress(), List.of());
    }

    private static Map<UpstreamServer, Integer> count(UpstreamPool pool, int n,
            java.util.function.IntFunction<Selection> selection) {
        Map<UpstreamServer, Integer> counts = new HashMap<>();
        for (int i = 0; i < n; i++) {
            counts.merge(pool.select(selection.apply(i)), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void smoothWeightedRoundRobinInterleavesByWeight() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.ROUND_ROBIN, 5, 1, 1);
        List<UpstreamServer> s = pool.servers();
        List<UpstreamServer> order = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            order.add(pool.select(any("")));
        }
        // nginx's documented sequence for weights 5,1,1: a a b a c a a
        assertThat(order).containsExactly(s.get(0), s.get(0), s.get(1), s.get(0), s.get(2), s.get(0), s.get(0));
        Map<UpstreamServer, Integer> counts = count(pool, 7000, i -> any(""));
        assertThat(counts).containsEntry(s.get(0), 5000).containsEntry(s.get(1), 1000).containsEntry(s.get(2), 1000);
    }

    @Test
    void leastConnectionsPicksFewestInFlightPerWeight() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.LEAST_CONN, 1, 2, 1);
        List<UpstreamServer> s = pool.servers();
        s.get(0).requestStarted();
        s.get(1).requestStarted();
        s.get(1).requestStarted();
        // 1/1, 2/2, 0/1: the idle one wins
        assertThat(pool.select(any(""))).isSameAs(s.get(2));
        s.get(2).requestStarted();
        s.get(2).requestStarted();
        // 1/1, 2/2, 2/1: the first two tie at 1 per weight
        assertThat(pool.select(any(""))).isIn(s.get(0), s.get(1));
        // Simulate load that stays: in-flight counts follow weights.
        UpstreamPool fresh = pool(UpstreamConfig.Balance.LEAST_CONN, 3, 1);
        for (int i = 0; i < 400; i++) {
            fresh.select(any("")).requestStarted();
        }
        assertThat(fresh.servers().get(0).active()).isEqualTo(300);
        assertThat(fresh.servers().get(1).active()).isEqualTo(100);
    }

    @Test
    void ipHashKeepsAClientsSlash24OnOneServerAndSpreadsClients() throws Exception {
        UpstreamPool pool = pool(UpstreamConfig.Balance.IP_HASH, 1, 1, 1);
        UpstreamServer first = pool.select(new Selection("", InetAddress.getByName("192.0.2.10"), List.of()));
        assertThat(pool.select(new Selection("", InetAddress.getByName("192.0.2.200"), List.of()))).isSameAs(first);
        Map<UpstreamServer, Integer> counts = count(pool, 3000,
                i -> new Selection("", addr("10." + (i / 256) + "." + (i % 256) + ".1"), List.of()));
        assertThat(counts).hasSize(3);
        counts.values().forEach(c -> assertThat(c).isCloseTo(1000, within(250)));
    }

    @Test
    void consistentHashFollowsWeightsAndMovesFewKeysWhenAServerGoesDown() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.HASH, 1, 1, 2);
        Map<UpstreamServer, Integer> counts = count(pool, 20000, i -> any("/item/" + i));
        List<UpstreamServer> s = pool.servers();
        assertThat(counts.get(s.get(0))).isCloseTo(5000, within(800));
        assertThat(counts.get(s.get(1))).isCloseTo(5000, within(800));
        assertThat(counts.get(s.get(2))).isCloseTo(10000, within(1200));
        // Take server 0 out: only its keys move.
        Map<Integer, UpstreamServer> before = new HashMap<>();
        for (int i = 0; i < 2000; i++) {
            before.put(i, pool.select(any("/item/" + i)));
        }
        s.get(0).failed();
        s.get(0).failed();
        assertThat(s.get(0).available()).isFalse();
        for (int i = 0; i < 2000; i++) {
            UpstreamServer now = pool.select(any("/item/" + i));
            if (before.get(i) != s.get(0)) {
                assertThat(now).isSameAs(before.get(i));
            } else {
                assertThat(now).isNotSameAs(s.get(0));
            }
        }
    }

    @Test
    void hashKeyTemplateEvaluatesVariables() {
        var request = new io.netty.handler.codec.http.DefaultHttpRequest(
                io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
                io.netty.handler.codec.http.HttpMethod.GET, "/a/b?user=7&x=1");
        request.headers().set("X-Tenant", "acme").set("Host", "h.test");
        InetSocketAddress client = new InetSocketAddress("198.51.100.4", 5555);
        assertThat(HashKeyTemplate.parse("$request_uri").evaluate(request, "/a/b", client))
                .isEqualTo("/a/b?user=7&x=1");
        assertThat(HashKeyTemplate.parse("$uri|$args").evaluate(request, "/a/b", client)).isEqualTo("/a/b|user=7&x=1");
        assertThat(HashKeyTemplate.parse("$uri").evaluate(request, "/normalized", client))
                .as("$uri is the normalized path routing used").isEqualTo("/normalized");
        assertThat(HashKeyTemplate.parse("$http_x_tenant:$arg_user:$remote_addr:$host")
                .evaluate(request, "/a/b", client)).isEqualTo("acme:7:198.51.100.4:h.test");
    }

    @Test
    void randomTwoChoicesFollowsWeightsAndAvoidsTheLoadedServer() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.RANDOM_TWO, 1, 1);
        List<UpstreamServer> s = pool.servers();
        for (int i = 0; i < 50; i++) {
            s.get(0).requestStarted();
        }
        Map<UpstreamServer, Integer> counts = count(pool, 1000, i -> any(""));
        // Server 0 wins only when both draws picked it (about a quarter of the time).
        assertThat(counts.get(s.get(0))).isCloseTo(250, within(80));
        UpstreamPool weighted = pool(UpstreamConfig.Balance.RANDOM_TWO, 3, 1);
        Map<UpstreamServer, Integer> idle = count(weighted, 4000, i -> any(""));
        // With no load, ties go to the first draw: picks follow weights.
        assertThat(idle.get(weighted.servers().get(0))).isCloseTo(3000, within(200));
    }

    @Test
    void passiveHealthTakesAServerOutForFailTimeoutAfterMaxFails() {
        UpstreamPool pool = pool(UpstreamConfig.Balance.ROUND_ROBIN, 1, 1);
        UpstreamServer a = pool.servers().get(0);
        a.failed();
        assertThat(a.available()).isTrue();
        clock.addAndGet(Duration.ofSeconds(11).toNanos());
        a.failed(); // the first failure is outside the window: this one starts a new count
        assertThat(a.available()).isTrue();
        a.failed();
        assertThat(a.available()).isFalse();
        for (int i = 0; i < 10; i++) {
            assertThat(pool.select(any(""))).isNotSameAs(a);
        }
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(a.available()).isTrue();
    }

    @Test
    void backupsServeOnlyWhenNoPrimaryIsUsable() {
        List<UpstreamServerConfig> servers = List.of(
                new UpstreamServerConfig(new UpstreamAddress.Tcp("p", new InetSocketAddress("127.0.0.1", 1)), 1, 1,
                        Duration.ofSeconds(10), false),
                new UpstreamServerConfig(new UpstreamAddress.Tcp("b", new InetSocketAddress("127.0.0.1", 2)), 1, 1,
                        Duration.ofSeconds(10), true));
        UpstreamPool pool = pool(UpstreamConfig.Balance.LEAST_CONN, servers);
        UpstreamServer primary = pool.servers().get(0);
        UpstreamServer backup = pool.servers().get(1);
        assertThat(pool.select(any(""))).isSameAs(primary);
        primary.failed();
        assertThat(pool.select(any(""))).isSameAs(backup);
        backup.failed();
        assertThat(pool.select(any(""))).isNull();
        // Already tried servers are skipped too.
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        assertThat(pool.select(new Selection("", null, List.of(primary)))).isSameAs(backup);
    }

    private static InetAddress addr(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
