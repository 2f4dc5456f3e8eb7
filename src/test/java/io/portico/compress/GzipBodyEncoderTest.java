package io.portico.compress;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** Portico's gzip: a stream of parts, each flushed, decodes to the input; the reused Deflater starts clean. */
class GzipBodyEncoderTest {
    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;

    private static byte[] gunzip(byte[] b) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b))) {
            return in.readAllBytes();
        }
    }

    private byte[] encode(GzipBodyEncoder enc, byte[] body, int part, boolean direct) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < body.length || i == 0; i += part) {
            int n = Math.min(part, body.length - i);
            ByteBuf in = direct ? alloc.directBuffer(n) : alloc.heapBuffer(n);
            in.writeBytes(body, i, n);
            boolean last = i + part >= body.length;
            ByteBuf o = enc.encode(in, last);
            assertThat(in.isReadable()).as("the part was read").isFalse();
            in.release();
            byte[] bytes = new byte[o.readableBytes()];
            o.readBytes(bytes);
            o.release();
            out.writeBytes(bytes);
            if (last) {
                break;
            }
        }
        return out.toByteArray();
    }

    @Test
    void partsDecodeToTheBodyAndTheEncoderIsReusedClean() throws IOException {
        byte[] text = CompressionTest.html(300_000, 9);
        byte[] noise = new byte[70_000];
        new Random(1).nextBytes(noise);
        GzipBodyEncoder enc = new GzipBodyEncoder(alloc, 5);
        try {
            assertThat(gunzip(encode(enc, text, 16 * 1024, true))).isEqualTo(text);
            enc.reset();
            assertThat(gunzip(encode(enc, noise, 7_000, false))).isEqualTo(noise); // grows past its estimate
            enc.reset();
            assertThat(gunzip(encode(enc, new byte[0], 1, true))).isEmpty();
            enc.reset();
            enc.flushEachPart(false); // a body of known length: parts may wait in the window
            byte[] held = encode(enc, text, 16 * 1024, true);
            assertThat(gunzip(held)).isEqualTo(text);
            enc.reset();
            byte[] whole = encode(enc, text, text.length, false);
            assertThat(gunzip(whole)).isEqualTo(text);
            assertThat(whole.length).isLessThan(text.length / 3);
        } finally {
            enc.close();
        }
    }

    @Test
    void aStreamedPartIsDecodableBeforeTheEnd() throws IOException {
        GzipBodyEncoder enc = new GzipBodyEncoder(alloc, 5);
        try {
            ByteBuf o = enc.encode(Unpooled.copiedBuffer("data: event one\n\n".getBytes()), false);
            byte[] first = new byte[o.readableBytes()];
            o.readBytes(first);
            o.release();
            // a sync flush: everything so far decodes without the end of the stream (a server-sent event arrives)
            java.util.zip.Inflater inflater = new java.util.zip.Inflater(true);
            inflater.setInput(first, 10, first.length - 10);
            byte[] got = new byte[100];
            int n;
            try {
                n = inflater.inflate(got);
            } catch (java.util.zip.DataFormatException e) {
                throw new AssertionError(e);
            } finally {
                inflater.end();
            }
            assertThat(new String(got, 0, n)).isEqualTo("data: event one\n\n");
            enc.encode(Unpooled.EMPTY_BUFFER, true).release();
        } finally {
            enc.close();
        }
    }
}
