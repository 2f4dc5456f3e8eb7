package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.concurrent.Executor;

/**
 * The response body on its way to the client: how much is in flight in memory, what is parked on disk, and so
 * whether the upstream may be read on. Streaming ({@code budget} 0): read while the client connection is writable.
 * Buffering: up to {@code budget} bytes in memory, the rest in a {@link ResponseSpill}. Event loop only.
 *
 * <p>Abstract, its events answered by the subclass ({@link ResponseRelay}, the response side of an exchange):
 * the two live and die together, and one object per exchange costs less than two joined by callbacks.
 */
abstract class ResponseWriter {
    private final Channel client;
    private final long budget;
    private final Executor files;
    private long pending;
    private ResponseSpill spill;
    private boolean closed;

    ResponseWriter(Channel client, long budget, Executor files) {
        this.client = client;
        this.budget = budget;
        this.files = files;
    }

    /** Client writes completed: the upstream may be read again. */
    abstract void drained();

    /** The exchange must end with the client connection closed; {@code note} is the access log's. */
    abstract void writeFailed(String note);

    /** The last content is about to be written. */
    abstract void completing();

    boolean buffering() {
        return budget > 0;
    }

    /**
     * Whether the upstream may be read now. Buffering, a used-up memory budget is no reason to stop: what comes
     * next goes to the spill, and only a full spill stops the upstream. (Stopping at the budget relied on the
     * transport's read batch carrying on to start the spill; when the budget was reached at the end of a batch,
     * as io_uring does at every completion, nothing ever read the upstream again.)
     */
    boolean room() {
        if (budget > 0) {
            return spill == null || !spill.full();
        }
        return client.isWritable();
    }

    /** A part of the body (ownership taken): to the client, or parked once the memory budget is used. */
    final void write(HttpContent content) {
        if (spill == null && (budget == 0 || pending < budget)) {
            send(content);
            return;
        }
        if (spill == null) {
            spill = new ResponseSpill(files, client.eventLoop(), this::spillWritten);
        }
        spill.append(content.content().retain());
        content.release();
    }

    /** The end of the response (ownership taken): written now, or after the parked bytes. */
    void end(LastHttpContent last) {
        if (spill == null) {
            completing();
            client.writeAndFlush(last, client.voidPromise());
        } else {
            spill.end(last);
            drain();
        }
    }

    private void send(HttpContent content) {
        int n = content.content().readableBytes();
        pending += n;
        client.writeAndFlush(content).addListener(f -> written(n));
    }

    private void written(int n) {
        pending -= n;
        if (spill != null) {
            drain();
        }
        drained();
    }

    private void drain() {
        if (closed) {
            return;
        }
        if (pending < budget) {
            spill.readNext(this::fromSpill);
        }
        LastHttpContent last = spill.drainedLast();
        if (last != null) {
            completing();
            client.writeAndFlush(last, client.voidPromise());
        }
    }

    /** Bytes reached the disk: they may go to the client, and the upstream may be read again if it waited for it. */
    private void spillWritten() {
        drain();
        if (!closed) {
            drained();
        }
    }

    private void fromSpill(ByteBuf buf) {
        if (closed) {
            if (buf != null) {
                buf.release();
            }
            return;
        }
        if (buf == null) {
            writeFailed(LogNotes.quoted("error", "response temp file failed"));
            return;
        }
        send(new DefaultHttpContent(buf));
        drain();
    }

    /** The exchange ended: parked bytes are dropped, the temp file deleted. */
    void release() {
        closed = true;
        if (spill != null) {
            spill.release();
        }
    }
}
