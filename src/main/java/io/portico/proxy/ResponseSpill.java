package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Response bytes beyond {@code proxyBuffers}, parked in a {@link TempFile} so the upstream is read to its end at its
 * own pace and its connection released, however slow the client. The client is fed from the file, in order, as it
 * drains. Beyond {@link #MAX_BYTES} (nginx's proxy_max_temp_file_size default) the exchange stops reading the
 * upstream instead. Event loop only.
 */
final class ResponseSpill {
    static final long MAX_BYTES = 1L << 30;
    /**
     * Bytes handed to the file but not yet on disk. They are buffers in memory, so past this the upstream is not
     * read until the disk catches up (a 1 GiB response to a fast client queued 180 MiB of them without it).
     */
    static final long WRITE_BACKLOG = 1L << 20;
    private static final int READ_CHUNK = 64 * 1024;

    private final TempFile file;
    private final Runnable written;
    private long appended;
    private long durable;
    private long sent;
    private boolean reading;
    private LastHttpContent last;

    /** @param written runs on the loop whenever more bytes reached the disk */
    ResponseSpill(Executor files, EventLoop loop, Runnable written) {
        this.file = new TempFile("portico-response-", files, loop);
        this.written = written;
    }

    /**
     * Too much parked and not yet sent, or too much not yet written: stop reading the upstream until the client
     * takes some or the disk catches up (then {@code written} runs).
     */
    boolean full() {
        return appended - sent >= MAX_BYTES || appended - durable >= WRITE_BACKLOG;
    }

    /** Takes ownership of {@code buf}. */
    void append(ByteBuf buf) {
        int n = buf.readableBytes();
        appended += n;
        file.append(buf, () -> {
            durable += n;
            written.run();
        });
    }

    /** The upstream response ended with {@code last} (ownership taken), to be sent after the parked bytes. */
    void end(LastHttpContent last) {
        this.last = last;
    }

    /**
     * Reads the next parked chunk when one is on disk and no read is in flight; {@code chunk} gets it on the loop
     * (null on a disk error). False when there is nothing to read now.
     */
    boolean readNext(Consumer<ByteBuf> chunk) {
        if (reading || sent >= durable) {
            return false;
        }
        reading = true;
        int n = (int) Math.min(READ_CHUNK, durable - sent);
        file.read(sent, n, buf -> {
            reading = false;
            if (buf != null) {
                sent += n;
            }
            chunk.accept(buf);
        });
        return true;
    }

    /** The whole response went to the client except its end, which is returned (once). */
    LastHttpContent drainedLast() {
        if (last == null || reading || sent < appended) {
            return null;
        }
        LastHttpContent l = last;
        last = null;
        return l;
    }

    void release() {
        if (last != null) {
            last.release();
            last = null;
        }
        file.close();
    }
}
