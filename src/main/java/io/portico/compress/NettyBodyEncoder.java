package io.portico.compress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * zstd or Brotli through Netty's encoder ({@code ZstdEncoder}, {@code BrotliEncoder}) in an embedded channel, as
 * {@code HttpContentCompressor} runs them; one per response, its buffers released by {@link #close}.
 */
final class NettyBodyEncoder implements BodyEncoder {
    private final EmbeddedChannel channel;

    NettyBodyEncoder(EmbeddedChannel channel) {
        this.channel = channel;
    }

    @Override
    public ByteBuf encode(ByteBuf in, boolean last) {
        if (in.isReadable()) {
            channel.writeOutbound(in.retainedSlice()); // the encoder releases its reference
            in.skipBytes(in.readableBytes());
        }
        if (last) {
            channel.finish();
        }
        CompositeByteBuf all = null;
        ByteBuf first = null;
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            if (!b.isReadable()) {
                b.release();
            } else if (first == null) {
                first = b;
            } else {
                if (all == null) {
                    all = channel.alloc().compositeBuffer(16);
                    all.addComponent(true, first);
                }
                all.addComponent(true, b);
            }
        }
        return all != null ? all : first != null ? first : Unpooled.EMPTY_BUFFER;
    }

    @Override
    public void close() {
        channel.finishAndReleaseAll();
    }
}
