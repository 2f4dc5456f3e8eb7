package io.portico.compress;

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

    private final boolean enabled;
    private final boolean[] available = new boolean[Coding.values().length];

    private ResponseCompression(boolean enabled) {
        this.enabled = enabled;
        available[Coding.GZIP.ordinal()] = true;
        available[Coding.ZSTD.ordinal()] = Zstd.isAvailable();
        available[Coding.BR.ordinal()] = Brotli.isAvailable();
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

    boolean available(Coding coding) {
        return available[coding.ordinal()];
    }

    /** The codings of {@code config} that load here, in its order. */
    List<Coding> offered(CompressionConfig config) {
        List<Coding> out = new ArrayList<>(config.codings().size());
        for (Coding c : config.codings()) {
            if (available[c.ordinal()]) {
                out.add(c);
            }
        }
        return out;
    }

    /** A new encoder for one response, on the connection's allocator; the caller finishes and releases it. */
    EmbeddedChannel encoder(ChannelHandlerContext ctx, Coding coding, CompressionConfig config) {
        ChannelHandler handler = switch (coding) {
            case GZIP -> ZlibCodecFactory.newZlibEncoder(
                    ZlibWrapper.GZIP, config.gzipLevel(), GZIP_WINDOW_BITS, GZIP_MEM_LEVEL);
            case ZSTD -> new ZstdEncoder(config.zstdLevel(), ZSTD_BLOCK, ZSTD_MAX_ENCODE);
            case BR -> new BrotliEncoder(brotli(config.brotliLevel()));
        };
        Channel ch = ctx.channel();
        return new EmbeddedChannel(ch.id(), ch.metadata().hasDisconnect(), ch.config(), handler);
    }

    private static com.aayushatharva.brotli4j.encoder.Encoder.Parameters brotli(int quality) {
        return new com.aayushatharva.brotli4j.encoder.Encoder.Parameters().setQuality(quality).setWindow(22);
    }
}
