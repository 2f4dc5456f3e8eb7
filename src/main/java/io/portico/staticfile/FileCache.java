package io.portico.staticfile;

import com.github.benmanes.caffeine.cache.AsyncLoadingCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.CacheLoader;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.FileRegion;
import io.portico.compress.ResponseCompression;
import io.portico.config.CompressionConfig;
import io.portico.config.CompressionConfig.Coding;
import io.portico.config.StaticConfig;
import io.portico.config.StaticConfig.FollowSymlinks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;

/**
 * nginx's open_file_cache: metadata of every looked-up path (negative entries too) for {@code revalidate}, and the
 * bytes of small files bounded by {@code cacheMaxSize}. Loads run on the executor, never on the caller's thread.
 *
 * <p>Cached bytes are read-only direct buffers wrapped as unreleasable: responses write a {@code duplicate()} (own
 * indices, same memory) and whoever releases it does nothing. The memory belongs to the {@link ByteBuffer}; when
 * an entry is evicted and the last in-flight write is done the garbage collector frees it. No reference counts, so
 * no release to forget on eviction or on a failed write.
 */
final class FileCache {
    private static final long MAX_META_ENTRIES = 65_536;
    /**
     * Descriptors kept open for sendfile, at most (nginx's {@code open_file_cache max=}); the least used is closed
     * first, once its last response is out.
     */
    private static final long MAX_OPEN_FILES = 1_024;

    /**
     * The key of a metadata entry: a location directory and a path the resolver validated below it. A string, so
     * that a hit builds no {@link Path}; the directory matters for the inside-root symlink check.
     */
    record Key(Path root, String relative) {}

    /** The key of cached bytes: a changed file (mtime or size) is a different key, so stale bytes are never hit. */
    record ContentKey(Path real, long mtimeMillis, long size) {}

    /** The file on disk no longer matches the metadata the response headers were built from. */
    static final class FileChangedException extends IOException {
        FileChangedException(Path file) {
            super("changed while reading: " + file);
        }
    }

    private final AsyncLoadingCache<Key, FileMeta> meta;
    /**
     * The key of a small file's compressed variant: the file as its content key, and how it was compressed, so a
     * changed file or level is a different entry. Compressed once, kept beside the file's own bytes.
     */
    record CompressedKey(Path real, long mtimeMillis, long size, Coding coding, int level) {}

    /** Bytes by {@link ContentKey} (a file's) or {@link CompressedKey} (a compressed variant's), weighed as held. */
    private final Cache<Object, ByteBuf> content;
    /**
     * Open descriptors of the files sent by sendfile ({@code sendfile-from} and up), by {@link ContentKey}: a changed
     * file is another key, whose descriptor is opened anew; the old one closes when its last response is out.
     */
    private final Cache<ContentKey, OpenFile> descriptors;
    private final Executor executor;
    private final long maxFileSize;
    private final long sendfileFrom;
    private final FollowSymlinks followSymlinks;
    private final MediaTypes mediaTypes;
    private final Ticker ticker;
    /**
     * How long after a stat a request may use the metadata without asking the cache ({@link HitMemo}): half of
     * {@code revalidate}, when the cache starts its background refresh, so a memo never serves what the cache would
     * stat again; 0 (never) when {@code revalidate = 0}.
     */
    private final long memoNanos;
    // For the metrics: a request that takes a small file's bytes from memory, or has to read them first.
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder hitBytes = new LongAdder();

    FileCache(StaticConfig config, MediaTypes mediaTypes, Executor executor, Ticker ticker) {
        this.mediaTypes = mediaTypes;
        this.executor = executor;
        this.maxFileSize = config.cacheMaxFileSize();
        this.sendfileFrom = config.cacheSendfileFrom();
        this.followSymlinks = config.followSymlinks();
        this.ticker = ticker;
        this.memoNanos = config.revalidate().toNanos() / 2;
        Caffeine<Object, Object> metaBuilder = Caffeine.newBuilder()
                .executor(executor)
                .ticker(ticker)
                .maximumSize(MAX_META_ENTRIES)
                .expireAfterWrite(config.revalidate());
        if (!config.revalidate().isZero()) {
            // A file read in the second half of its revalidate period is stat'ed again in the background while
            // the request is answered from the cache; so a hot file never makes its requests wait for a stat
            // (all of them would, once a period, and behind a busy event loop), and a change still shows within
            // revalidate. Only a file not read in that half expires and waits.
            metaBuilder.refreshAfterWrite(config.revalidate().dividedBy(2));
        }
        this.meta = metaBuilder.buildAsync(new CacheLoader<Key, FileMeta>() {
            @Override
            public FileMeta load(Key key) {
                FileMeta loaded = stat(key);
                loaded.freshness().verified(ticker.read());
                return loaded;
            }

            /**
             * A refresh that finds the file as it was keeps the entry it had: nothing new to allocate, and what
             * was built from it (the content cache's key holds its real path) keeps comparing by identity.
             */
            @Override
            public FileMeta reload(Key key, FileMeta old) {
                FileMeta fresh = stat(key);
                long now = ticker.read();
                if (fresh.sameFileAs(old)) {
                    old.freshness().verified(now);
                    return old;
                }
                old.freshness().retire();
                fresh.freshness().verified(now);
                return fresh;
            }
        });
        this.content = Caffeine.newBuilder()
                .executor(executor)
                .ticker(ticker)
                .maximumWeight(config.cacheMaxSize())
                .<Object, ByteBuf>weigher((key, buf) -> buf.readableBytes())
                .build();
        this.descriptors = Caffeine.newBuilder()
                .executor(executor)
                .ticker(ticker)
                .maximumSize(MAX_OPEN_FILES)
                // a key not asked for within two revalidate periods is a file nobody reads or one that changed
                .expireAfterAccess(config.revalidate().isZero() ? Duration.ofSeconds(1)
                        : config.revalidate().multipliedBy(2))
                .<ContentKey, OpenFile>removalListener((key, file, cause) -> {
                    if (file != null) {
                        file.release(); // the cache's count: closed now, or when its last region is out
                    }
                })
                .build();
    }

    /** Whether {@code file} goes out by sendfile from a kept descriptor where the connection can sendfile. */
    boolean sendsFromDescriptor(FileMeta file) {
        return file.size() >= sendfileFrom;
    }

    /**
     * A region of {@code file} over its kept descriptor, counted for the caller (Netty releases it once written),
     * or null when no descriptor is open for it: then {@link #openDescriptor}.
     */
    FileRegion cachedRegion(FileMeta file, long start, long length) {
        OpenFile open = descriptors.getIfPresent(file.contentKey());
        return open == null ? null : open.region(start, length);
    }

    /**
     * Opens {@code file}'s descriptor off the caller's thread and keeps it (one descriptor per file, however many
     * ask at once), then a region of it as {@link #cachedRegion}. Fails as {@link #open} does when the file is no
     * longer what its metadata says.
     */
    CompletableFuture<FileRegion> openDescriptor(FileMeta file, long start, long length) {
        ContentKey key = file.contentKey();
        return CompletableFuture.supplyAsync(() -> {
            for (;;) {
                OpenFile open = descriptors.get(key, k -> new OpenFile(openChecked(file)));
                FileRegion region = open.region(start, length);
                if (region != null) {
                    return region;
                }
                descriptors.asMap().remove(key, open); // dropped and closed meanwhile: open it again
            }
        }, executor);
    }

    /** Closes the kept descriptors (each once its last response is out): the cache is no longer used. */
    void close() {
        descriptors.invalidateAll();
        descriptors.cleanUp();
    }

    CacheFigures figures() {
        long cachedBytes = content.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
        return new CacheFigures(hits.sum(), misses.sum(), hitBytes.sum(), cachedBytes);
    }

    Executor executor() {
        return executor;
    }

    /** The metadata of {@code relative} (validated by the resolver) under {@code root}; complete on a cached hit. */
    CompletableFuture<FileMeta> meta(Path root, String relative) {
        return meta.get(new Key(root, relative));
    }

    void invalidate(FileMeta file) {
        file.freshness().retire(); // no request takes it from a memo any more
        meta.synchronous().invalidate(file.key());
    }

    /**
     * Whether a request may use {@code file} without asking the cache: it was found true on disk less than half of
     * {@code revalidate} ago and is still the cache's entry. Past that the cache is asked, which refreshes it.
     */
    boolean fresh(FileMeta file) {
        return memoNanos > 0 && file.freshness().freshAt(ticker.read(), memoNanos);
    }

    boolean fitsInMemory(FileMeta file) {
        return file.size() <= maxFileSize && file.size() < Integer.MAX_VALUE;
    }

    /**
     * The bytes of a small file, shared and read-only: write {@code duplicate()} or {@code slice()} of it. Only
     * successful reads are cached (a failed one is the caller's to retry), so concurrent misses may read twice.
     */
    CompletableFuture<ByteBuf> content(FileMeta file) {
        ByteBuf cached = cachedContent(file);
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        misses.increment();
        ContentKey key = file.contentKey();
        return CompletableFuture.supplyAsync(() -> read(file), executor).thenApply(bytes -> {
            content.put(key, bytes);
            return bytes;
        });
    }

    /** The bytes of a small file when they are in memory (as {@link #content}), else null: nothing is read. */
    ByteBuf cachedContent(FileMeta file) {
        ContentKey key = file.contentKey();
        ByteBuf cached = content.getIfPresent(key);
        if (cached != null) {
            hits.increment();
            hitBytes.add(key.size());
        }
        return cached;
    }

    /**
     * A small file compressed with {@code coding} at the location's level, shared and read-only like
     * {@link #content}: compressed once on the executor, off the event loop, then served from memory.
     */
    CompletableFuture<ByteBuf> compressed(FileMeta file, Coding coding, CompressionConfig config) {
        int level = switch (coding) {
            case GZIP -> config.gzipLevel();
            case BR -> config.brotliLevel();
            case ZSTD -> config.zstdLevel();
        };
        CompressedKey key = new CompressedKey(file.real(), file.mtimeMillis(), file.size(), coding, level);
        ByteBuf cached = content.getIfPresent(key);
        if (cached != null) {
            hits.increment();
            hitBytes.add(cached.readableBytes());
            return CompletableFuture.completedFuture(cached);
        }
        return content(file).thenApplyAsync(bytes -> {
            ByteBuf variant = ResponseCompression.compressWhole(coding, config, bytes.duplicate());
            content.put(key, variant);
            return variant;
        }, executor);
    }

    /** Opens a large file off the caller's thread; the caller owns the channel and must close it on every path. */
    CompletableFuture<FileChannel> open(FileMeta file) {
        return CompletableFuture.supplyAsync(() -> openChecked(file), executor);
    }

    /** The file opened, refused (as changed) when it is shorter than its metadata says; on the executor. */
    private static FileChannel openChecked(FileMeta file) {
        try {
            FileChannel channel = openReal(file);
            if (channel.size() < file.size()) {
                channel.close();
                throw new FileChangedException(file.real());
            }
            return channel;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Opens the symlink-free path the stat checked, refusing a symlink there: between that stat and this open the
     * name may have been replaced by a symlink (to anywhere, outside the root too), and a plain open would follow
     * it. O_NOFOLLOW makes that an error, reported as the file having changed, so the caller walks again. A
     * directory above it swapped for a symlink in the same window is not caught here (nginx's open_file_cache
     * has the same window unless disable_symlinks opens each component with openat).
     */
    private static FileChannel openReal(FileMeta file) throws IOException {
        try {
            return FileChannel.open(file.real(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (AccessDeniedException e) {
            throw e;
        } catch (IOException e) {
            // ELOOP (a symlink there now) comes as a bare IOException whose text the JDK marks; the name may
            // also have flipped again since, so look at it too: a real I/O error of a file that stayed stays one
            String message = e.getMessage();
            if ((message != null && message.contains("NOFOLLOW_LINKS")) || Files.isSymbolicLink(file.real())
                    || !Files.exists(file.real(), LinkOption.NOFOLLOW_LINKS)) {
                throw new FileChangedException(file.real());
            }
            throw e;
        }
    }

    private FileMeta stat(Key key) {
        Path file = key.relative().isEmpty() ? key.root() : key.root().resolve(key.relative()).normalize();
        if (!file.startsWith(key.root())) {
            return FileMeta.missing(key, file); // the resolver never yields this; belt and braces
        }
        FileMeta meta = stat(key, file);
        if (!meta.isFile()) {
            return meta;
        }
        // the precompressed siblings, stat'ed now so a hit on the file knows its variants without more lookups
        FileMeta[] variants = new FileMeta[ContentCoding.PREFERENCE.length];
        boolean any = false;
        for (ContentCoding coding : ContentCoding.PREFERENCE) {
            // most files have no variants: stat's first check answers an absent one with one stat
            FileMeta variant = stat(new Key(key.root(), key.relative() + coding.suffix),
                    file.resolveSibling(file.getFileName() + coding.suffix));
            if (variant.isFile()) {
                variants[coding.ordinal()] = variant.asVariant(coding);
                any = true;
            }
        }
        return any ? FileMeta.file(key, file, meta.real(), meta.size(), meta.mtimeMillis(), meta.contentType(),
                variants) : meta;
    }

    /**
     * Whether {@code path} names something that could be served, asked without an exception. The NIO calls report
     * an absent file by throwing from native code, and that throw costs several times the system call (a JNI class
     * lookup, the VM's exception log and its lock): it was half of a refresh's CPU for a file without precompressed
     * variants. Follows symlinks, so a dangling one is absent; where a present one points is for the symlink check.
     */
    private static boolean exists(Path path) {
        return path.toFile().exists();
    }

    private FileMeta stat(Key key, Path file) {
        if (!exists(file)) {
            // one stat, where the realpath below would walk the path and report the absence by a throw: an absent
            // precompressed variant, and each path of a flood of distinct missing ones (a scanner)
            return FileMeta.missing(key, file);
        }
        try {
            Path real = SafePathResolver.followable(key.root(), file, followSymlinks);
            // not following: a real path that turned into a symlink since followable resolved it is neither a
            // file nor a directory here, so it is served as missing rather than as whatever it points to now
            BasicFileAttributes attributes =
                    Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (attributes.isDirectory()) {
                return FileMeta.directory(key, file, real);
            }
            if (attributes.isRegularFile()) {
                long mtime = attributes.lastModifiedTime().toMillis();
                String type = mediaTypes.of(file.getFileName().toString());
                return FileMeta.file(key, file, real, attributes.size(), mtime, type, null);
            }
            return FileMeta.missing(key, file);
        } catch (IOException | SecurityException e) {
            return FileMeta.missing(key, file);
        }
    }

    private static ByteBuf read(FileMeta file) {
        try (FileChannel channel = openReal(file)) {
            ByteBuffer bytes = ByteBuffer.allocateDirect((int) file.size());
            while (bytes.hasRemaining() && channel.read(bytes) >= 0) {
                // read until full or end of file
            }
            if (bytes.hasRemaining() || channel.size() != file.size()) {
                throw new FileChangedException(file.real());
            }
            bytes.flip();
            return Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(bytes.asReadOnlyBuffer()));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
