package io.portico.staticfile;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.stream.ChunkedWriteHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS connections cannot sendfile, so files go as chunks through a {@link ChunkedWriteHandler}, which the server is
 * expected to put in the pipeline. Without one the chunks would fail in the codec and the connection would hang,
 * so as a safety net one is added right after the HttpServerCodec, once per connection, with a warning.
 */
final class ChunkedWrites {
    private static final Logger log = LoggerFactory.getLogger(ChunkedWrites.class);
    private static volatile boolean warned;

    private ChunkedWrites() {}

    static void ensure(ChannelPipeline pipeline) {
        if (pipeline.get(ChunkedWriteHandler.class) != null) {
            return;
        }
        ChannelHandlerContext codec = pipeline.context(HttpServerCodec.class);
        if (codec == null) {
            pipeline.addFirst("portico-chunked-write", new ChunkedWriteHandler());
        } else {
            pipeline.addAfter(codec.name(), "portico-chunked-write", new ChunkedWriteHandler());
        }
        if (!warned) {
            warned = true;
            log.warn("no ChunkedWriteHandler in a TLS pipeline: added one after the HTTP codec (add it in the server)");
        }
    }
}
