package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A request body read completely before any upstream is contacted, so a slow upload never holds an app-server
 * worker and the body can be replayed on a retry. Up to {@code memoryLimit} bytes stay in memory; beyond that the
 * body goes to a {@link TempFile}, up to {@code limit} ({@code maxBodySize}; beyond it the client gets 413).
 */
final class RequestBody {
    private static final int READ_CHUNK = 64 * 1024;
    /** Bytes handed to the file but not yet written; beyond it the client is paused. */
    private static final long WRITE_BACKLOG = 1024 * 1024;

    private final long limit;
    private final long memoryLimit;
    private final Executor files;
    private final EventLoop loop;
    private final Consumer<Boolean> backlogged;
    private final List<ByteBuf> chunks = new ArrayList<>();
    private long size;
    private TempFile file; // null while in memory
    private long unwritten;
    private Runnable waitingForWritability;

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
        } else if (file == null && size <= memoryLimit) {
            chunks.add(chunk);
        } else {
            if (file == null) {
                file = new TempFile("portico-body-", files, loop);
                chunks.forEach(this::append);
                chunks.clear();
            }
            append(chunk);
        }
        return true;
    }

    private void append(ByteBuf chunk) {
        int n = chunk.readableBytes();
        unwritten += n;
        if (unwritten > WRITE_BACKLOG) {
            backlogged.accept(true);
        }
        file.append(chunk, () -> {
            unwritten -= n;
            if (unwritten <= WRITE_BACKLOG / 2) {
                backlogged.accept(false);
            }
        });
    }

    long size() {
        return size;
    }

    /** Runs {@code ready} on the event loop once the whole body is stored: true when it is, false on a disk error. */
    void whenStored(Consumer<Boolean> ready) {
        if (file == null) {
            ready.accept(true);
        } else {
            file.whenWritten(ready);
        }
    }

    /**
     * Writes the whole body and its end to {@code upstream}, keeping it for a possible replay; {@code done} runs
     * once all of it is written. A file-backed body is read one chunk at a time, the next only while the upstream is
     * writable; it stops when {@code current} turns false (the attempt ended).
     */
    void writeTo(Channel upstream, BooleanSupplier current, Runnable done) {
        if (file == null) {
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
        file.read(position, n, buf -> {
            if (buf == null) {
                upstream.close(); // the exchange sees the close and answers 502
                return;
            }
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
        if (file != null) {
            file.close();
        }
    }
}
