package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.UpstreamAddress;
import io.portico.config.UpstreamConfig;
import io.portico.config.UpstreamServerConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Passive health (nginx's max_fails / fail_timeout), on a clock the test moves. */
class PassiveHealthTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    /** Servers with max-fails = 2 and fail-timeout = 10 s; {@code backup[i]} says which are backups. */
    private UpstreamPool pool(boolean... backup) {
        List<UpstreamServerConfig> servers = new ArrayList<>();
        for (int i = 0; i < backup.length; i++) {
            servers.add(new UpstreamServerConfig(
                    new UpstreamAddress.Tcp("10.0.0." + (i + 1), new InetSocketAddress("127.0.0.1", 9000 + i)), 1, 2,
                    Duration.ofSeconds(10), backup[i]));
        }
        return new UpstreamPool(new UpstreamConfig("app", servers, UpstreamConfig.Balance.ROUND_ROBIN, "$request_uri",
                4, Duration.ofSeconds(60), 0, 8, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofSeconds(1), 1, Optional.empty(), 16 * 1024, 100), now::get);
    }

    private void advanceSeconds(long s) {
        now.addAndGet(Duration.ofSeconds(s).toNanos());
    }

    @Test
    void maxFailsWithinFailTimeoutTakeAServerOutForFailTimeout() {
        UpstreamServer first = pool(false, false).servers().get(0);
        first.failed();
        assertThat(first.available()).isTrue();
        first.failed();
        assertThat(first.available()).isFalse();
        advanceSeconds(9);
        assertThat(first.available()).isFalse();
        advanceSeconds(1);
        assertThat(first.available()).isTrue();
    }

    @Test
    void failuresFurtherApartThanFailTimeoutDoNotAddUp() {
        UpstreamServer first = pool(false, false).servers().get(0);
        first.failed();
        advanceSeconds(11);
        first.failed();
        assertThat(first.available()).isTrue();
    }

    @Test
    void aPoolsOnlyServerIsNeverTakenOutByFailures() {
        UpstreamServer only = pool(false).servers().get(0);
        for (int i = 0; i < 5; i++) {
            only.failed();
        }
        assertThat(only.available()).isTrue();
    }

    @Test
    void anOnlyPrimaryWithABackupIsTakenOutSoThatTheBackupServes() {
        UpstreamServer primary = pool(false, true).servers().get(0);
        primary.failed();
        primary.failed();
        assertThat(primary.available()).isFalse();
    }
}
