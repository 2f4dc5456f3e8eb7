package io.portico.compress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip (RFC 1952) over the JDK's zlib, its {@link Deflater} kept for the connection and reset for each response,
 * as nginx keeps its zlib state in the request pool: Netty's {@code JdkZlibEncoder} creates and initializes a
 * Deflater (256 KiB of zlib state) per response, and goes through an {@code EmbeddedChannel}, which together cost
 * about as much as deflating a 20 KB page at level 5. Works on direct buffers in place (no copy to a heap array).
 * A part of a body of unknown length ends with a sync flush, so a stream reaches the client as it comes; one of
 * known length may wait in zlib's window for the next (nginx flushes the same way).
 */
final class GzipBodyEncoder implements BodyEncoder {
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final ByteBufAllocator alloc;
    private final Deflater deflater;
    private final int level;
    private final CRC32 crc = new CRC32();
    private boolean headerWritten;
    private boolean flushEachPart = true;
    private long length;

    GzipBodyEncoder(ByteBufAllocator alloc, int level) {
        this.alloc = alloc;
        this.deflater = new Deflater(level, true);
        this.level = level;
    }

    int level() {
        return level;
    }

    @Override
    public void flushEachPart(boolean flush) {
        this.flushEachPart = flush;
    }

    @Override
    public void reset() {
        flushEachPart = true;
        deflater.reset();
        crc.reset();
        headerWritten = false;
        length = 0;
    }

    @Override
    public ByteBuf encode(ByteBuf in, boolean last) {
        int n = in.readableBytes();
        // deflate's bound for stored blocks, plus the flush marker, the header and the trailer
        ByteBuf out = alloc.buffer(n + (n >> 8) + 64);
        boolean done = false;
        try {
            if (!headerWritten) {
                out.writeBytes(HEADER);
                headerWritten = true;
            }
            if (n > 0) {
                ByteBuffer src = in.nioBuffer(in.readerIndex(), n);
                crc.update(src.duplicate());
                deflater.setInput(src);
                length += n;
            }
            if (last) {
                deflater.finish();
            }
            int mode = last || !flushEachPart ? Deflater.NO_FLUSH : Deflater.SYNC_FLUSH;
            while (true) {
                if (!out.isWritable(64)) {
                    out.ensureWritable(Math.max(256, out.capacity() >> 1));
                }
                ByteBuffer dst = out.nioBuffer(out.writerIndex(), out.writableBytes());
                int wrote = deflater.deflate(dst, mode);
                out.writerIndex(out.writerIndex() + wrote);
                if (last ? deflater.finished() : (deflater.needsInput() && dst.hasRemaining())) {
                    break;
                }
            }
            in.skipBytes(n);
            if (last) {
                out.ensureWritable(8);
                out.writeIntLE((int) crc.getValue());
                out.writeIntLE((int) length);
            }
            done = true;
            return out;
        } finally {
            if (!done) {
                out.release();
            }
        }
    }

    @Override
    public void close() {
        deflater.end();
    }
}
