package io.portico.upstream;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayDeque;

/**
 * The codec of a uwsgi upstream connection: requests go out as uwsgi packets ({@link UwsgiEncoder}) and the
 * response comes back as plain HTTP/1.x, which uWSGI writes (status line, headers, body), read by the same strict
 * decoder as an HTTP upstream's ({@link UpstreamCodec.Decoder}), under the same names, so that everything that
 * looks at the codec (leftover bytes, a protocol switch) works unchanged. uWSGI closes the connection after each
 * response, so the decoder reads a body without framing to the close, and the connection is never pooled. Its status
 * line carries the version the request's {@code SERVER_PROTOCOL} named, {@code HTTP/2.0} for an HTTP/2 client,
 * which this decoder (alone) takes as HTTP/1.1.
 */
final class UwsgiCodec {
    private UwsgiCodec() {}

    /** @param maxFields header fields a response may have at most */
    static void addTo(ChannelPipeline p, HttpDecoderConfig config, int maxFields) {
        ArrayDeque<HttpMethod> methods = new ArrayDeque<>();
        p.addLast(UpstreamCodec.DECODER, new UpstreamCodec.Decoder(config, maxFields, methods, true));
        p.addLast(UpstreamCodec.ENCODER, new UwsgiEncoder(methods));
    }
}
