package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The upkeep thread runs what it is given, after idling too, runs it once more before sleeping, and survives a task
 * that throws.
 */
class ZoneUpkeepTest {
    /** One for the class: its thread lives as long as the JVM. */
    private static final ZoneUpkeep upkeep = new ZoneUpkeep(TimeUnit.MILLISECONDS.toNanos(4),
            TimeUnit.MICROSECONDS.toNanos(100));

    @Test
    void runsTasksOnItsOwnThreadAndWakesFromIdleForEach() throws Exception {
        for (int round = 0; round < 50; round++) { // each round finds the thread idle or about to idle
            CompletableFuture<String> ran = new CompletableFuture<>();
            upkeep.execute(() -> ran.complete(Thread.currentThread().getName()));
            assertThat(ran.get(5, TimeUnit.SECONDS)).isEqualTo("portico-ratelimit-upkeep");
        }
    }

    /**
     * Caffeine's maintenance task, run by an executor of one's own, is not rescheduled when a pass leaves work and
     * the cache's scheduler is taken (AddressSprayTest saw a zone stay at max-clients + 1): the second run is what
     * finishes such a pass.
     */
    @Test
    void aTaskRunsOnceMoreBeforeTheThreadSleeps() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        upkeep.execute(runs::incrementAndGet);
        await().atMost(Duration.ofSeconds(5)).until(() -> runs.get() == 2);
        Thread.sleep(100); // many gather periods: the thread is asleep, and the task was not run a third time
        assertThat(runs.get()).isEqualTo(2);
    }

    @Test
    void aFailingTaskDoesNotStopTheOthers() throws Exception {
        upkeep.execute(() -> {
            throw new IllegalStateException("expected by the test");
        });
        CompletableFuture<Boolean> after = new CompletableFuture<>();
        upkeep.execute(() -> after.complete(true));
        assertThat(after.get(5, TimeUnit.SECONDS)).isTrue();
    }
}
