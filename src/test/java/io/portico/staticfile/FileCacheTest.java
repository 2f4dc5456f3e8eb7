package io.portico.staticfile;

import static org.assertj.core.api.Assertions.assertThat;

import io.portico.config.StaticConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import io.netty.buffer.ByteBuf;
import io.portico.config.CompressionConfig;
import java.util.List;
import java.util.Set;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The metadata cache's refresh: what it keeps when the file is as it was, and what it replaces. */
class FileCacheTest {
    @TempDir
    Path site;

    private final Deque<Runnable> tasks = new ArrayDeque<>();
    private final AtomicLong nanos = new AtomicLong();
    private FileCache cache;
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        StaticConfig config = new StaticConfig(64 << 20, 256 * 1024, Duration.ofSeconds(1),
                StaticConfig.FollowSymlinks.INSIDE_ROOT, Map.of(), 64 << 10);
        cache = new FileCache(config, new MediaTypes(Map.of()), tasks::add, nanos::get);
        root = site.toRealPath();
        Files.writeString(root.resolve("a.txt"), "hello");
        Files.writeString(root.resolve("a.txt.gz"), "gzipped");
    }

    private FileMeta meta() {
        var future = cache.meta(root, "a.txt");
        while (!tasks.isEmpty()) {
            tasks.poll().run();
        }
        return future.join();
    }

    /** A read past half of revalidate: answered from the cache, and the queued refresh run. */
    private FileMeta refreshed() {
        nanos.addAndGet(Duration.ofMillis(600).toNanos());
        meta();
        return meta();
    }

    @Test
    void aRefreshThatFindsTheFileUnchangedKeepsTheEntry() {
        FileMeta first = meta();
        assertThat(first.variants()).isNotNull();
        assertThat(refreshed()).isSameAs(first);
    }

    @Test
    void aRefreshThatFindsTheFileChangedReplacesIt() throws IOException {
        FileMeta first = meta();
        Files.writeString(root.resolve("a.txt"), "hello, longer");
        FileMeta second = refreshed();
        assertThat(second).isNotSameAs(first);
        assertThat(second.size()).isEqualTo(13);
    }

    @Test
    void aChangedVariantIsAChange() throws IOException {
        FileMeta first = meta();
        Path gz = root.resolve("a.txt.gz");
        Files.setLastModifiedTime(gz, FileTime.fromMillis(Files.getLastModifiedTime(gz).toMillis() - 60_000));
        FileMeta second = refreshed();
        assertThat(second).isNotSameAs(first);
        assertThat(second.variants()[ContentCoding.GZIP.ordinal()].mtimeMillis())
                .isNotEqualTo(first.variants()[ContentCoding.GZIP.ordinal()].mtimeMillis());
    }

    @Test
    void aVariantIsASymlinkOnlyWhenItStaysInsideTheRoot(@TempDir Path outside) throws IOException {
        Files.delete(root.resolve("a.txt.gz"));
        Files.writeString(outside.resolve("secret.br"), "outside");
        Files.createSymbolicLink(root.resolve("a.txt.br"), outside.resolve("secret.br"));
        Files.writeString(root.resolve("inside.gz"), "gzipped");
        Files.createSymbolicLink(root.resolve("a.txt.gz"), root.resolve("inside.gz"));
        FileMeta meta = meta();
        assertThat(meta.variants()[ContentCoding.BR.ordinal()]).isNull();
        assertThat(meta.variants()[ContentCoding.GZIP.ordinal()].real()).isEqualTo(root.resolve("inside.gz"));
    }

    @Test
    void aDanglingOrDirectoryVariantIsNoVariant() throws IOException {
        Files.delete(root.resolve("a.txt.gz"));
        Files.createSymbolicLink(root.resolve("a.txt.gz"), root.resolve("gone.gz"));
        Files.createDirectory(root.resolve("a.txt.br"));
        FileMeta meta = meta();
        assertThat(meta.isFile()).isTrue();
        assertThat(meta.variants()).isNull();
    }

    @Test
    void aVariantThatAppearsIsAChange() throws IOException {
        Files.delete(root.resolve("a.txt.gz"));
        FileMeta first = meta();
        assertThat(first.variants()).isNull();
        Files.writeString(root.resolve("a.txt.br"), "brotli");
        FileMeta second = refreshed();
        assertThat(second).isNotSameAs(first);
        assertThat(second.variants()[ContentCoding.BR.ordinal()]).isNotNull();
    }
    @Test
    void aSmallFilesCompressedVariantIsCompressedOnceAndKeptUntilTheFileChanges() throws IOException {
        CompressionConfig config = new CompressionConfig(true, List.of(CompressionConfig.Coding.GZIP),
                Set.of("text/plain"), 0, 5, 4, 3);
        Files.writeString(root.resolve("a.txt"), "hello ".repeat(200));
        FileMeta file = meta();
        ByteBuf first = run(cache.compressed(file, CompressionConfig.Coding.GZIP, config));
        ByteBuf again = run(cache.compressed(file, CompressionConfig.Coding.GZIP, config));
        assertThat(again).as("the second request takes the kept variant").isSameAs(first);
        assertThat(tasks).isEmpty();
        byte[] gz = new byte[first.readableBytes()];
        first.duplicate().readBytes(gz);
        try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(gz))) {
            assertThat(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8))
                    .isEqualTo("hello ".repeat(200));
        }
        assertThat(first.readableBytes()).isLessThan(1200);
        Files.writeString(root.resolve("a.txt"), "changed ".repeat(200));
        FileMeta changed = refreshed();
        assertThat(run(cache.compressed(changed, CompressionConfig.Coding.GZIP, config))).isNotSameAs(first);
    }

    private <T> T run(java.util.concurrent.CompletableFuture<T> future) {
        while (!tasks.isEmpty()) {
            tasks.poll().run();
        }
        return future.join();
    }
}
