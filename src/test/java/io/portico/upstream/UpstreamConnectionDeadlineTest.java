package io.portico.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The connection's deadline timer: moved by each request, rescheduled only when a request needs it sooner. */
class UpstreamConnectionDeadlineTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final UpstreamConnection connection = new UpstreamConnection(channel, null, null);

    @Test
    void aShorterDeadlineOnAKeptAliveConnectionIsCheckedInTimeDespiteAnEarlierLongerOne() {
        AtomicInteger first = new AtomicInteger();
        connection.watch(() -> {
            first.incrementAndGet();
            return 0;
        }, TimeUnit.SECONDS.toNanos(60));
        connection.unwatch();

        AtomicInteger second = new AtomicInteger();
        connection.watch(() -> {
            second.incrementAndGet();
            return 0;
        }, TimeUnit.MILLISECONDS.toNanos(20));

        await().atMost(Duration.ofSeconds(5)).until(() -> {
            channel.runScheduledPendingTasks();
            return second.get() == 1;
        });
        assertThat(first).hasValue(0);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aDeadlineWithTimeLeftIsCheckedAgainAndAnUnwatchedOneNever() {
        AtomicInteger checks = new AtomicInteger();
        connection.watch(() -> checks.incrementAndGet() < 2 ? TimeUnit.MILLISECONDS.toNanos(10) : 0,
                TimeUnit.MILLISECONDS.toNanos(10));
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            channel.runScheduledPendingTasks();
            return checks.get() == 2;
        });

        AtomicInteger unwatched = new AtomicInteger();
        connection.watch(unwatched::incrementAndGet, TimeUnit.MILLISECONDS.toNanos(10));
        connection.unwatch();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            channel.runScheduledPendingTasks();
            return System.nanoTime() - until > 0;
        });
        assertThat(unwatched).hasValue(0);
        assertThat(checks).hasValue(2);
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }
}
