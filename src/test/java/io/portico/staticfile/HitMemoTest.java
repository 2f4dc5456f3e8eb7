package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.StaticConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-loop memo of paths that were files: used only while the metadata is the cache's entry and younger than
 * half of revalidate (when the cache would stat it again), never across locations, never with revalidate = 0.
 */
class HitMemoTest {
    private static final Duration REVALIDATE = Duration.ofSeconds(1);

    @TempDir
    Path site;

    private final Deque<Runnable> tasks = new ArrayDeque<>();
    private final AtomicLong nanos = new AtomicLong();
    private FileCache cache;
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        cache = cache(REVALIDATE);
        root = site.toRealPath();
        Files.writeString(root.resolve("a.txt"), "hello");
    }

    private FileCache cache(Duration revalidate) {
        StaticConfig config = new StaticConfig(64 << 20, 256 * 1024, revalidate,
                StaticConfig.FollowSymlinks.INSIDE_ROOT, Map.of(), 64 << 10);
        return new FileCache(config, new MediaTypes(Map.of()), tasks::add, nanos::get);
    }

    private FileMeta meta(FileCache from) {
        var future = from.meta(root, "a.txt");
        while (!tasks.isEmpty()) {
            tasks.poll().run();
        }
        return future.join();
    }

    @Test
    void aFileJustStatedIsKnownUntilHalfOfRevalidate() {
        HitMemo memo = new HitMemo(cache);
        FileMeta file = meta(cache);
        memo.put("/a.txt", file);
        assertThat(memo.get("/a.txt")).isSameAs(file);
        assertThat(memo.get("/b.txt")).isNull();
        nanos.addAndGet(REVALIDATE.toNanos() / 2 - 1);
        assertThat(memo.get("/a.txt")).isSameAs(file);
        nanos.addAndGet(1);
        assertThat(memo.get("/a.txt")).as("the cache would stat it again now: ask it").isNull();
    }

    @Test
    void aRefreshThatFindsTheFileUnchangedMakesItKnownAgain() {
        HitMemo memo = new HitMemo(cache);
        FileMeta file = meta(cache);
        memo.put("/a.txt", file);
        nanos.addAndGet(REVALIDATE.toNanos() * 6 / 10);
        assertThat(memo.get("/a.txt")).isNull();
        assertThat(meta(cache)).isSameAs(file); // past half: served, and the refresh queued and run
        assertThat(meta(cache)).isSameAs(file);
        assertThat(memo.get("/a.txt")).as("re-stamped by the refresh").isSameAs(file);
    }

    @Test
    void aFileTheRefreshFoundChangedIsNoLongerKnown() throws IOException {
        HitMemo memo = new HitMemo(cache);
        FileMeta file = meta(cache);
        memo.put("/a.txt", file);
        Files.writeString(root.resolve("a.txt"), "hello, longer");
        nanos.addAndGet(REVALIDATE.toNanos() * 6 / 10);
        meta(cache); // the refresh replaces the entry
        FileMeta changed = meta(cache);
        assertThat(changed).isNotSameAs(file);
        assertThat(changed.size()).isEqualTo(13);
        nanos.addAndGet(-REVALIDATE.toNanos() * 6 / 10); // even within the old entry's half period
        assertThat(memo.get("/a.txt")).as("replaced in the cache: retired").isNull();
    }

    @Test
    void anInvalidatedFileIsNoLongerKnown() {
        HitMemo memo = new HitMemo(cache);
        FileMeta file = meta(cache);
        memo.put("/a.txt", file);
        cache.invalidate(file); // what a request does when the file changed under its read
        assertThat(memo.get("/a.txt")).isNull();
    }

    @Test
    void eachLocationKnowsOnlyItsOwnPaths() {
        HitMemo one = new HitMemo(cache);
        HitMemo other = new HitMemo(cache);
        one.put("/a.txt", meta(cache));
        assertThat(other.get("/a.txt")).isNull();
        assertThat(one.get("/a.txt")).isNotNull();
    }

    @Test
    void withRevalidateZeroNothingIsKept() {
        FileCache statsEveryTime = cache(Duration.ZERO);
        HitMemo memo = new HitMemo(statsEveryTime);
        memo.put("/a.txt", meta(statsEveryTime));
        assertThat(memo.get("/a.txt")).isNull();
    }

    @Test
    void eachThreadHasItsOwnTable() throws InterruptedException {
        HitMemo memo = new HitMemo(cache);
        memo.put("/a.txt", meta(cache));
        FileMeta[] seen = new FileMeta[1];
        Thread other = new Thread(() -> seen[0] = memo.get("/a.txt"));
        other.start();
        other.join();
        assertThat(seen[0]).isNull();
        assertThat(memo.get("/a.txt")).isNotNull();
    }
}
