package io.portico.staticfile;

import io.netty.buffer.Unpooled;
import io.netty.buffer.WrappedByteBuf;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A file descriptor the file cache keeps open (nginx's open_file_cache) and every response sent from it shares:
 * counted once for the cache and once for each region in flight, closed when the cache has dropped it and the last
 * region is done. So an eviction, a changed file or a reload never closes a descriptor a sendfile is still reading,
 * and a response costs no open, stat or close, nor a hop to the file executor.
 *
 * <p>On io_uring a region goes out from a read-only mapping of the file instead ({@link #mapped}): Netty splices a
 * region through a pipe, and io_uring runs every splice in a kernel worker thread, where a plain write from the
 * mapped page cache is issued in the ring itself. The mapping is made once per descriptor, counted like a region
 * while a response holds it, and unmapped with the descriptor's close, so a replaced file's disk space is not
 * held until a GC. Nothing in the JVM reads the mapped bytes (only the kernel copies them into the socket), so a
 * file truncated meanwhile fails that write (EFAULT) instead of raising SIGBUS.
 *
 * <p>Thread-safe: the cache drops its count on the executor, regions release theirs on event loops.
 */
final class OpenFile {
    private final FileChannel channel;
    /** The cache's count, plus one per region; 0 once closed, and never counted up again. */
    private final AtomicInteger refs = new AtomicInteger(1);
    /** The whole file, mapped at the first {@link #mapped} (guarded by this). */
    private MappedByteBuffer mapping;

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

    /**
     * {@code region}'s bytes as a buffer over the file's mapping, holding the region's count (released here); the
     * region itself when it is not one of a kept descriptor or cannot be mapped (larger than 2 GiB, or past the
     * mapped size), which then goes out as any file region does.
     */
    static Object mapped(FileRegion region) {
        if (!(region instanceof SharedRegion shared) || region.count() > Integer.MAX_VALUE) {
            return region;
        }
        OpenFile file = shared.file;
        ByteBuffer bytes;
        try {
            bytes = file.slice(region.position(), (int) region.count());
        } catch (IOException | RuntimeException e) {
            return region; // splice it, as before; this descriptor's next response tries the mapping again
        }
        if (bytes == null || !file.retain()) {
            return region;
        }
        region.release();
        // HttpContent, as a body part: the access log and the meters count those (and regions), not bare buffers.
        return new DefaultHttpContent(new MappedBody(file, bytes));
    }

    private synchronized ByteBuffer slice(long position, int count) throws IOException {
        if (mapping == null) {
            long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                return null;
            }
            mapping = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        }
        if (position + count > mapping.capacity()) {
            return null;
        }
        return mapping.slice((int) position, count);
    }

    /** Gives one count back; the last closes the descriptor and unmaps the file. */
    void release() {
        if (refs.decrementAndGet() == 0) {
            synchronized (this) {
                if (mapping != null) {
                    // Every buffer over it has been released (each held a count): nothing reads it any more.
                    PlatformDependent.freeDirectBuffer(mapping);
                    mapping = null;
                }
            }
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

    /**
     * A response's slice of the mapping: released by Netty once written or failed, it gives its count back. A
     * wrapper, since Netty's direct buffers take no read-only memory to subclass; nothing on a plain HTTP/1.1
     * pipeline derives a buffer from it (the encoder retains and passes it on), so its release is the last.
     */
    private static final class MappedBody extends WrappedByteBuf {
        private final OpenFile file;

        MappedBody(OpenFile file, ByteBuffer bytes) {
            super(Unpooled.wrappedBuffer(bytes));
            this.file = file;
        }

        @Override
        public boolean release() {
            return released(super.release());
        }

        @Override
        public boolean release(int decrement) {
            return released(super.release(decrement));
        }

        private boolean released(boolean last) {
            if (last) {
                file.release();
            }
            return last;
        }
    }
}
