package io.portico.compress;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.Brotli;
import io.netty.handler.codec.compression.BrotliEncoder;
import io.netty.handler.codec.compression.ZlibCodecFactory;
import io.netty.handler.codec.compression.ZlibWrapper;
import io.netty.handler.codec.compression.Zstd;
import io.netty.handler.codec.compression.ZstdEncoder;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AttributeKey;
import io.portico.config.CompressionConfig;
import io.portico.config.CompressionConfig.Coding;
import io.portico.config.LocationConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's compression stage, built once: which codings load on this machine (gzip always; zstd and brotli
 * where zstd-jni's and brotli4j's native libraries load, said once in the log), and the per-connection handler.
 */
public final class ResponseCompression {
    private static final Logger log = LoggerFactory.getLogger(ResponseCompression.class);
    /** Set while a streamed response on this channel is being compressed: a file must go as chunks, not sendfile. */
    static final AttributeKey<Boolean> STREAMING = AttributeKey.valueOf("portico.compressing");
    /** zlib's defaults (what nginx and HttpContentCompressor use): a 32 KiB window, memLevel 8. */
    private static final int GZIP_WINDOW_BITS = 15;
    private static final int GZIP_MEM_LEVEL = 8;
    /** zstd's block: input is gathered up to this before a frame is cut (and at each flush). */
    private static final int ZSTD_BLOCK = 64 * 1024;
    private static final int ZSTD_MAX_ENCODE = 32 * 1024 * 1024;

    /** The codings that load are a fact of the process: said once, however many listeners build a stage. */
    private static final java.util.concurrent.atomic.AtomicBoolean LOGGED = new java.util.concurrent.atomic.AtomicBoolean();

    /** Which codings load is a fact of the process (the native libraries load once or never). */
    private static final boolean[] AVAILABLE = new boolean[Coding.values().length];

    static {
        AVAILABLE[Coding.GZIP.ordinal()] = true;
        AVAILABLE[Coding.ZSTD.ordinal()] = Zstd.isAvailable();
        AVAILABLE[Coding.BR.ordinal()] = Brotli.isAvailable();
    }

    private final boolean enabled;

    private ResponseCompression(boolean enabled) {
        this.enabled = enabled;
    }

    /** The stage for these locations: enabled when any of them compresses (then the codings are logged once). */
    public static ResponseCompression create(Collection<LocationConfig> locations) {
        boolean any = locations.stream().anyMatch(l -> l.compression().enabled());
        ResponseCompression c = new ResponseCompression(any);
        if (any && LOGGED.compareAndSet(false, true)) {
            log.info("compression: gzip (JDK); zstd {}; br {}",
                    Zstd.isAvailable() ? "(zstd-jni)" : "not offered: " + Zstd.cause(),
                    Brotli.isAvailable() ? "(brotli4j)" : "not offered: " + Brotli.cause());
        }
        return c;
    }

    /** Whether some location compresses: without one, the stage is left out of the pipeline. */
    public boolean enabled() {
        return enabled;
    }

    /** The handler of one HTTP/1.1 connection ({@code onStream} false) or one HTTP/2 stream. */
    public ChannelHandler newHandler(boolean onStream) {
        return new CompressionHandler(this, onStream);
    }

    /**
     * Whether the response being written on {@code channel} is compressed as it streams: its body must then be
     * {@code HttpContent} (a file as chunks), since a {@code FileRegion} cannot pass through an encoder.
     */
    public static boolean compressing(Channel channel) {
        return Boolean.TRUE.equals(channel.attr(STREAMING).get());
    }

    static boolean available(Coding coding) {
        return AVAILABLE[coding.ordinal()];
    }

    /**
     * For a responder that keeps compressed variants itself (the static file cache): the coding this response
     * would be compressed with, by the same rules as the stage, with Vary added as the stage adds it; null for
     * none. The responder then sends the variant with {@link #rewriteHead}'s headers, and the stage, seeing
     * Content-Encoding, leaves it alone.
     */
    public static Coding negotiate(CompressionConfig config, HttpRequest request, HttpResponse response, long length) {
        if (!config.enabled()) {
            return null;
        }
        RequestFacts facts = RequestFacts.of(request);
        Coding coding = CompressionPolicy.choose(config, facts, response, length);
        return facts.head() ? null : coding;
    }

    /** The head of a compressed variant (Content-Encoding, weak ETag, no length or Accept-Ranges). */
    public static void rewriteHead(HttpHeaders headers, Coding coding) {
        CompressionPolicy.rewriteHead(headers, coding);
    }

    /**
     * A whole body compressed, on any thread (the static cache's loader runs it off the event loop): a read-only
     * direct copy, wrapped unreleasable as the file cache keeps its bytes.
     */
    public static ByteBuf compressWhole(Coding coding, CompressionConfig config, ByteBuf body) {
        BodyEncoder encoder = coding == Coding.GZIP
                ? new GzipBodyEncoder(UnpooledByteBufAllocator.DEFAULT, config.gzipLevel())
                : new NettyBodyEncoder(new EmbeddedChannel(encoderHandler(coding, config)));
        ByteBuf compressed = null;
        try {
            compressed = encoder.encode(body.duplicate(), true);
            java.nio.ByteBuffer out = java.nio.ByteBuffer.allocateDirect(compressed.readableBytes());
            compressed.getBytes(compressed.readerIndex(), out);
            out.flip();
            return Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(out.asReadOnlyBuffer()));
        } finally {
            if (compressed != null) {
                compressed.release();
            }
            encoder.close();
        }
    }

    /**
     * The codings of {@code config} that load here, in its order, with their tokens: made once per list of codings
     * (a handful of orders of three codings exist), not per response.
     */
    static Offer offered(CompressionConfig config) {
        Offer offer = OFFERS.get(config.codings());
        if (offer == null) {
            offer = Offer.of(config.codings());
            OFFERS.putIfAbsent(config.codings(), offer);
        }
        return offer;
    }

    private static final java.util.concurrent.ConcurrentMap<List<Coding>, Offer> OFFERS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Codings on offer and their Accept-Encoding tokens, index for index. Immutable. */
    record Offer(List<Coding> codings, String[] tokens) {
        static Offer of(List<Coding> configured) {
            List<Coding> out = new ArrayList<>(configured.size());
            for (Coding c : configured) {
                if (AVAILABLE[c.ordinal()]) {
                    out.add(c);
                }
            }
            String[] tokens = new String[out.size()];
            for (int i = 0; i < tokens.length; i++) {
                tokens[i] = out.get(i).token;
            }
            return new Offer(List.copyOf(out), tokens);
        }
    }

    /**
     * A new encoder on the connection's allocator: gzip's is Portico's (a connection keeps it for the responses
     * after, {@link GzipBodyEncoder} says why), zstd's and br's Netty's. The caller closes it.
     */
    BodyEncoder encoder(ChannelHandlerContext ctx, Coding coding, CompressionConfig config) {
        if (coding == Coding.GZIP) {
            return new GzipBodyEncoder(ctx.alloc(), config.gzipLevel());
        }
        Channel ch = ctx.channel();
        return new NettyBodyEncoder(
                new EmbeddedChannel(ch.id(), ch.metadata().hasDisconnect(), ch.config(), encoderHandler(coding, config)));
    }

    private static ChannelHandler encoderHandler(Coding coding, CompressionConfig config) {
        return switch (coding) {
            case GZIP -> ZlibCodecFactory.newZlibEncoder(
                    ZlibWrapper.GZIP, config.gzipLevel(), GZIP_WINDOW_BITS, GZIP_MEM_LEVEL);
            case ZSTD -> new ZstdEncoder(config.zstdLevel(), ZSTD_BLOCK, ZSTD_MAX_ENCODE);
            case BR -> new BrotliEncoder(brotli(config.brotliLevel()));
        };
    }

    private static com.aayushatharva.brotli4j.encoder.Encoder.Parameters brotli(int quality) {
        return new com.aayushatharva.brotli4j.encoder.Encoder.Parameters().setQuality(quality).setWindow(22);
    }
}
