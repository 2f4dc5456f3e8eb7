package io.portico.upstream;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayDeque;

/**
 * The codec of a FastCGI upstream connection: requests as records ({@link FastCgiEncoder}), responses read back
 * into HTTP messages ({@link FastCgiDecoder}), under the HTTP codec's names. With {@code keepConn} the application
 * keeps the connection after END_REQUEST ({@code FCGI_KEEP_CONN}) and it returns to the pool like an HTTP one.
 */
final class FastCgiCodec {
    private FastCgiCodec() {}

    static void addTo(ChannelPipeline p, int maxHeaderSize, int maxFields, boolean keepConn, ErrorLog errorLog) {
        ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
        p.addLast(UpstreamCodec.DECODER, new FastCgiDecoder(methods, maxHeaderSize, maxFields, errorLog));
        p.addLast(UpstreamCodec.ENCODER, new FastCgiEncoder(methods, keepConn));
    }
}
