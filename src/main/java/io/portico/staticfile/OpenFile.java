package io.portico.staticfile;

import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file descriptor the file cache keeps open (nginx's open_file_cache) and every response sent from it shares:
 * counted once for the cache and once for each region in flight, closed when the cache has dropped it and the last
 * region is done. So an eviction, a changed file or a reload never closes a descriptor a sendfile is still reading,
 * and a response costs no open, stat or close, nor a hop to the file executor.
 *
 * <p>Thread-safe: the cache drops its count on the executor, regions release theirs on event loops.
 */
final class OpenFile {
    private final FileChannel channel;
    /** The cache's count, plus one per region; 0 once closed, and never counted up again. */
    private final AtomicInteger refs = new AtomicInteger(1);

    OpenFile(FileChannel channel) {
        this.channel = channel;
    }

    /**
     * A region of {@code count} bytes from {@code position}, sharing this descriptor; the region's release (Netty's,
     * once written or failed) gives its count back. Null when the descriptor was closed meanwhile (the cache dropped
     * it between the lookup and this call): the caller opens it again.
     */
    FileRegion region(long position, long count) {
        if (!retain()) {
            return null;
        }
        return new SharedRegion(this, position, count);
    }

    private boolean retain() {
        for (;;) {
            int n = refs.get();
            if (n == 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives one count back; the last closes the descriptor. */
    void release() {
        if (refs.decrementAndGet() == 0) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // a read-only descriptor: nothing written is lost with it
            }
        }
    }

    boolean isOpen() {
        return channel.isOpen();
    }

    /**
     * Netty's file region, so every transport sends it as it sends any file (epoll's and io_uring's sendfile or
     * splice, NIO's transferTo), except that deallocation gives the shared count back instead of closing the file.
     */
    private static final class SharedRegion extends DefaultFileRegion {
        private final OpenFile file;

        SharedRegion(OpenFile file, long position, long count) {
            super(file.channel, position, count);
            this.file = file;
        }

        @Override
        protected void deallocate() {
            file.release();
        }
    }
}
