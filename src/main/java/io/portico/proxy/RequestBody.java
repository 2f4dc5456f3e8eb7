package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A request body read completely before any upstream is contacted, so a slow upload never holds an app-server
 * worker and the body can be replayed on a retry. Up to {@code memoryLimit} bytes stay in memory; beyond that the
 * body goes to a temp file (deleted on close), up to {@code limit} ({@code maxBodySize}; beyond it the client gets
 * 413). File work runs on {@code files}, one task after another per body, and comes back to the event loop:
 * the loop never opens, writes or reads a file.
 */
final class RequestBody {
    private static final int READ_CHUNK = 64 * 1024;
    /** Bytes handed to the file writer but not yet written; beyond it the client is paused. */
    private static final long WRITE_BACKLOG = 1024 * 1024;

    private final long limit;
    private final long memoryLimit;
    private final Executor files;
    private final EventLoop loop;
    private final Consumer<Boolean> backlogged;
    private final List<ByteBuf> chunks = new ArrayList<>();
    private long size;

    private CompletableFuture<Void> fileTail; // null while in memory
    private volatile FileChannel file;
    private volatile IOException fileError;
    private long unwritten;
    private Runnable waitingForWritability;
    private boolean released;

    RequestBody(long limit, long memoryLimit, Executor files, EventLoop loop, Consumer<Boolean> backlogged) {
        this.limit = limit;
        this.memoryLimit = memoryLimit;
        this.files = files;
        this.loop = loop;
        this.backlogged = backlogged;
    }

    /** Takes ownership of {@code chunk}; false (and the chunk released) when the body would exceed the limit. */
    boolean add(ByteBuf chunk) {
        int n = chunk.readableBytes();
        if (size + n > limit) {
            chunk.release();
            return false;
        }
        size += n;
        if (n == 0) {
            chunk.release();
        } else if (fileTail == null && size <= memoryLimit) {
            chunks.add(chunk);
        } else {
            spill(chunk);
        }
        return true;
    }

    private void spill(ByteBuf chunk) {
        if (fileTail == null) {
            fileTail = CompletableFuture.runAsync(this::openFile, files);
            List<ByteBuf> earlier = new ArrayList<>(chunks);
            chunks.clear();
            earlier.forEach(this::append);
        }
        append(chunk);
    }

    private void openFile() {
        try {
            Path path = Files.createTempFile("portico-body-", ".tmp");
            file = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.DELETE_ON_CLOSE);
        } catch (IOException e) {
            fileError = e;
        }
    }

    private void append(ByteBuf chunk) {
        int n = chunk.readableBytes();
        unwritten += n;
        if (unwritten > WRITE_BACKLOG) {
            backlogged.accept(true);
        }
        fileTail = fileTail.thenRunAsync(() -> {
            try {
                if (fileError == null && file != null) {
                    ByteBuffer b = chunk.nioBuffer();
                    while (b.hasRemaining()) {
                        file.write(b);
                    }
                }
            } catch (IOException e) {
                fileError = e;
            } finally {
                chunk.release();
            }
            loop.execute(() -> {
                unwritten -= n;
                if (unwritten <= WRITE_BACKLOG / 2) {
                    backlogged.accept(false);
                }
            });
        }, files);
    }

    long size() {
        return size;
    }

    /** Runs {@code ready} on the event loop once the whole body is stored: true when it is, false on a disk error. */
    void whenStored(Consumer<Boolean> ready) {
        if (fileTail == null) {
            ready.accept(true);
        } else {
            fileTail.whenComplete((v, e) -> loop.execute(() -> ready.accept(fileError == null && e == null)));
        }
    }

    /**
     * Writes the whole body and its end to {@code upstream}, keeping it for a possible replay; {@code done} runs
     * once all of it is written. A file-backed body is read on the file executor, one chunk at a time, the next
     * only while the upstream is writable; it stops when {@code current} turns false (the attempt ended).
     */
    void writeTo(Channel upstream, BooleanSupplier current, Runnable done) {
        if (fileTail == null) {
            for (ByteBuf chunk : chunks) {
                upstream.write(new DefaultHttpContent(chunk.retainedDuplicate()));
            }
            upstream.write(LastHttpContent.EMPTY_LAST_CONTENT);
            done.run();
            return;
        }
        pump(upstream, 0, current, done);
    }

    private void pump(Channel upstream, long position, BooleanSupplier current, Runnable done) {
        if (position >= size) {
            upstream.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            done.run();
            return;
        }
        int n = (int) Math.min(READ_CHUNK, size - position);
        files.execute(() -> {
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.heapBuffer(n);
            try {
                synchronized (this) {
                    if (released) {
                        buf.release();
                        return;
                    }
                    buf.writeBytes(file, position, n);
                }
            } catch (IOException e) {
                buf.release();
                loop.execute(upstream::close); // the exchange sees the close and answers 502
                return;
            }
            loop.execute(() -> {
                if (!current.getAsBoolean() || !upstream.isActive()) {
                    buf.release();
                    return;
                }
                upstream.writeAndFlush(new DefaultHttpContent(buf));
                Runnable next = () -> pump(upstream, position + n, current, done);
                if (upstream.isWritable()) {
                    next.run();
                } else {
                    waitingForWritability = next;
                }
            });
        });
    }

    /** The upstream became writable again: continue a paused file read. */
    void writable() {
        Runnable next = waitingForWritability;
        waitingForWritability = null;
        if (next != null) {
            next.run();
        }
    }

    void release() {
        chunks.forEach(ByteBuf::release);
        chunks.clear();
        waitingForWritability = null;
        if (fileTail != null) {
            fileTail.whenCompleteAsync((v, e) -> {
                synchronized (this) {
                    released = true;
                    closeQuietly();
                }
            }, files);
        }
    }

    private void closeQuietly() {
        try {
            if (file != null) {
                file.close();
            }
        } catch (IOException ignored) {
            // DELETE_ON_CLOSE: nothing else to clean
        }
    }
}
