package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * A temp file (deleted on close) that an event loop fills and reads without touching the disk itself: creating,
 * appending, reading and closing run on {@code files}, appends in order, and every result comes back on
 * {@code loop}. The first I/O error sticks; later operations report it.
 */
final class TempFile {
    private final String prefix;
    private final Executor files;
    private final EventLoop loop;
    private CompletableFuture<Void> tail; // the last append; appends run one after another
    private volatile FileChannel channel;
    private volatile IOException error;
    private boolean closed; // guarded by this: a read never races the close

    TempFile(String prefix, Executor files, EventLoop loop) {
        this.prefix = prefix;
        this.files = files;
        this.loop = loop;
        this.tail = CompletableFuture.runAsync(this::open, files);
    }

    private void open() {
        try {
            Path path = Files.createTempFile(prefix, ".tmp");
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
        } catch (IOException e) {
            error = e;
        }
    }

    /** Appends {@code buf} (ownership taken) after the earlier appends; {@code written} runs on the loop after. */
    void append(ByteBuf buf, Runnable written) {
        tail = tail.thenRunAsync(() -> {
            try {
                FileChannel ch = channel;
                if (error == null && ch != null) {
                    ByteBuffer b = buf.nioBuffer();
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                }
            } catch (IOException e) {
                error = e;
            } finally {
                buf.release();
            }
            loop.execute(written);
        }, files);
    }

    /** Runs {@code done} on the loop once every append so far is on disk: true, or false after an I/O error. */
    void whenWritten(Consumer<Boolean> done) {
        tail.whenComplete((v, e) -> loop.execute(() -> done.accept(error == null && e == null)));
    }

    /**
     * Reads {@code length} bytes at {@code position}; {@code done} gets them on the loop (its to release), or null on
     * error.
     */
    void read(long position, int length, Consumer<ByteBuf> done) {
        files.execute(() -> {
            ByteBuf buf = PooledByteBufAllocator.DEFAULT.heapBuffer(length);
            try {
                synchronized (this) {
                    if (closed || error != null) {
                        throw new IOException("temp file closed or failed", error);
                    }
                    while (buf.writerIndex() < length) {
                        if (buf.writeBytes(channel, position + buf.writerIndex(), length - buf.writerIndex()) < 0) {
                            throw new IOException("temp file shorter than expected");
                        }
                    }
                }
            } catch (IOException e) {
                buf.release();
                loop.execute(() -> done.accept(null));
                return;
            }
            loop.execute(() -> done.accept(buf));
        });
    }

    /** Closes (and so deletes) the file after the pending appends. */
    void close() {
        try {
            tail.whenCompleteAsync((v, e) -> closeNow(), files);
        } catch (RejectedExecutionException shuttingDown) {
            closeNow(); // the file executor stopped with the server: nothing else will touch the file
        }
    }

    private synchronized void closeNow() {
        closed = true;
        try {
            if (channel != null) {
                channel.close();
            }
        } catch (IOException ignored) {
            // DELETE_ON_CLOSE: nothing left to clean
        }
    }
}
