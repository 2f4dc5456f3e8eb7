package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.ArrayList;
import java.util.List;

/**
 * A request body read completely before any upstream is contacted, so a slow upload never holds an app-server
 * worker and the body can be replayed on a retry. Bounded by {@code maxBodySize}; beyond it the request gets 413.
 * The chunks are kept in memory (see docs/proxy.md: no temp-file spill yet).
 */
final class RequestBody {
    private final long limit;
    private final List<ByteBuf> chunks = new ArrayList<>();
    private long size;

    RequestBody(long limit) {
        this.limit = limit;
    }

    /** Takes ownership of {@code chunk}; false (and the chunk released) when the body would exceed the limit. */
    boolean add(ByteBuf chunk) {
        if (size + chunk.readableBytes() > limit) {
            chunk.release();
            return false;
        }
        if (chunk.isReadable()) {
            size += chunk.readableBytes();
            chunks.add(chunk);
        } else {
            chunk.release();
        }
        return true;
    }

    long size() {
        return size;
    }

    /** Writes the whole body (without flushing) and keeps it for a possible replay. */
    void writeTo(Channel upstream) {
        for (ByteBuf chunk : chunks) {
            upstream.write(new DefaultHttpContent(chunk.retainedDuplicate()));
        }
        upstream.write(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    void release() {
        chunks.forEach(ByteBuf::release);
        chunks.clear();
    }
}
