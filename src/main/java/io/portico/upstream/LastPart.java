package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * The last part of a body whose length its head gave, as {@link UpstreamCodec.Decoder} reads it: such a body has no
 * trailers, so unlike Netty's {@code DefaultLastHttpContent} the part makes no headers object for them (its
 * trailers are the shared empty, read-only ones, as {@link LastHttpContent#EMPTY_LAST_CONTENT}'s are).
 */
final class LastPart extends DefaultHttpContent implements LastHttpContent {
    LastPart(ByteBuf content) {
        super(content);
    }

    @Override
    public HttpHeaders trailingHeaders() {
        return EmptyHttpHeaders.INSTANCE;
    }

    @Override
    public LastHttpContent copy() {
        return replace(content().copy());
    }

    @Override
    public LastHttpContent duplicate() {
        return replace(content().duplicate());
    }

    @Override
    public LastHttpContent retainedDuplicate() {
        return replace(content().retainedDuplicate());
    }

    @Override
    public LastHttpContent replace(ByteBuf content) {
        return new LastPart(content);
    }

    @Override
    public LastHttpContent retain() {
        super.retain();
        return this;
    }

    @Override
    public LastHttpContent retain(int increment) {
        super.retain(increment);
        return this;
    }

    @Override
    public LastHttpContent touch() {
        super.touch();
        return this;
    }

    @Override
    public LastHttpContent touch(Object hint) {
        super.touch(hint);
        return this;
    }
}
