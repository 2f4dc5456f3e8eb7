package io.portico.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.ratelimit.RedisCluster;
import io.portico.ratelimit.RedisServer;
import io.portico.testing.RefusedPort;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code portico check --connect}: what each store is, from real Redis servers, and a store out of reach. */
class CheckConnectTest {
    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int check(String conf, String... more) throws Exception {
        Path file = dir.resolve("portico.conf");
        Files.writeString(file, "portico {\nlisten = [\"127.0.0.1:0\"]\n" + conf + "}\n");
        String[] args = new String[2 + more.length + 1];
        args[0] = "check";
        args[1] = "--conf=" + file;
        System.arraycopy(more, 0, args, 2, more.length);
        args[args.length - 1] = "--connect";
        return Main.run(new PrintWriter(out), new PrintWriter(err), args);
    }

    private static String zones(String rateStore, String connStore) {
        return "rate-limits { perip { rate = 10r/s, store = \"" + rateStore + "\" } }\n"
                + "limit-conn { conns { max = 10, store = \"" + connStore + "\" } }\n"
                + "locations = [ { path = \"/\", return = 204, rate-limit = perip, limit-conn = conns } ]\n";
    }

    @Test
    void saysWhatEachStoreIs() throws Exception {
        RedisServer server = RedisServer.shared();
        try (RedisCluster cluster = RedisCluster.start()) {
            int code = check(zones(server.uri(), cluster.uri()));
            assertThat(err.toString()).isEmpty();
            assertThat(code).isZero();
            assertThat(out.toString())
                    .containsPattern("# store " + server.uri() + " \\(rate-limits.perip\\): ok, Redis 7\\.[\\d.]+,"
                            + " standalone")
                    .containsPattern("# store redis-cluster://127.0.0.1:\\d+,.* \\(limit-conn.conns\\): ok, Redis"
                            + " [\\d.]+, cluster: 6 nodes \\(3 masters, 3 replicas\\); a decision's commands ran on"
                            + " each master \\(scripts loaded, EVALSHA by key\\)")
                    .containsPattern("standalone; a decision's commands ran \\(scripts loaded, EVALSHA by key\\)");
        }
    }

    /**
     * A store that answers INFO but refuses a decision's script (an ACL user without EVALSHA): every decision would
     * be on-store-failure's, so the check fails and names the refused command.
     */
    @Test
    void aStoreThatRefusesTheScriptsFailsTheCheck() throws Exception {
        RedisServer redis = RedisServer.start();
        try {
            assertThat(redis.command("ACL", "SETUSER", "portico", "on", ">secret", "~*", "+@all", "-evalsha",
                    "-eval")).isEqualTo("OK");
            String uri = redis.uri().replace("redis://", "redis://portico:secret@");
            int code = check(zones(uri, RedisServer.shared().uri()));
            assertThat(code).isEqualTo(2);
            assertThat(err.toString()).containsPattern("store redis://127.0.0.1:\\d+ \\(rate-limits.perip\\):"
                    + " Redis 7[\\d.]+, standalone; but a decision's commands failed \\(NOPERM .*'evalsha'.*\\):"
                    + " every decision would be on-store-failure's");
            assertThat(err.toString()).doesNotContain("secret");
            assertThat(out.toString()).contains("(limit-conn.conns): ok");
        } finally {
            redis.stop();
        }
    }

    @Test
    void aStoreOutOfReachIsNamedAndTheExitCodeSaysSo() throws Exception {
        try (RefusedPort refused = new RefusedPort()) {
            String uri = "redis://127.0.0.1:" + refused.port();
            int code = check(zones(uri, RedisServer.shared().uri()));
            assertThat(code).isEqualTo(2);
            assertThat(err.toString()).contains("store " + uri + " (rate-limits.perip): rate-limits.perip.store:"
                    + " cannot connect to " + uri);
            assertThat(out.toString()).contains("(limit-conn.conns): ok");
        }
    }

    @Test
    void withoutSharedZonesThereIsNothingToReach() throws Exception {
        assertThat(check("locations = [ { path = \"/\", return = 204 } ]\n")).isZero();
        assertThat(out.toString()).contains("# store: every zone is local, no store to connect to");
    }
}
