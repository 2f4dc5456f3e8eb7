package io.portico.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The upkeep thread runs what it is given, after idling too, and survives a task that throws. */
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
