package io.portico.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.portico.config.AccessLogConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** USR1's reopen while the access log is being written: every line lands exactly once, in some file. */
class LogFilesTest {
    @TempDir
    Path dir;

    @Test
    void renamesAndReopensUnderConcurrentWritesLoseNoLine() throws Exception {
        Path file = dir.resolve("access.log");
        int lines = 20_000; // below the asynchronous queue's 65,536: nothing is dropped for a full queue
        List<Path> rotated = new ArrayList<>();
        try (AccessLog log = AccessLog.create(new AccessLogConfig(AccessLogConfig.Kind.FILE, Optional.of(file)))) {
            AtomicInteger written = new AtomicInteger();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                for (int i = 0; i < lines; i++) {
                    log.log("line " + i);
                    written.incrementAndGet();
                }
            });
            for (int r = 1; r <= 5; r++) {
                int due = r * lines / 6;
                await().atMost(Duration.ofSeconds(10)).until(() -> written.get() >= due);
                Path to = dir.resolve("access.log." + r);
                Files.move(file, to);
                rotated.add(to);
                LogFiles.Result result = LogFiles.reopen();
                assertThat(result.reopened()).contains(file.toString());
                assertThat(result.failed()).isEmpty();
                assertThat(file).exists();
            }
            writer.get();
        }
        rotated.add(file);
        Set<String> seen = new HashSet<>();
        int total = 0;
        for (Path p : rotated) {
            List<String> content = Files.readAllLines(p);
            total += content.size();
            seen.addAll(content);
        }
        assertThat(total).isEqualTo(lines);
        assertThat(seen).hasSize(lines).contains("line 0", "line " + (lines - 1));
    }

    @Test
    void aFileThatCannotBeReopenedKeepsTheOldOneAndSaysSo() throws Exception {
        Path sub = Files.createDirectories(dir.resolve("logs"));
        Path file = sub.resolve("access.log");
        try (AccessLog log = AccessLog.create(new AccessLogConfig(AccessLogConfig.Kind.FILE, Optional.of(file)))) {
            log.log("before");
            Files.move(file, dir.resolve("moved.log"));
            Files.delete(sub);
            Files.writeString(dir.resolve("logs"), "a file where the directory was");
            LogFiles.Result result = LogFiles.reopen();
            assertThat(result.failed()).singleElement().asString().startsWith(file.toString());
            log.log("after");
        }
        assertThat(Files.readAllLines(dir.resolve("moved.log"))).containsExactly("before", "after");
    }
}
