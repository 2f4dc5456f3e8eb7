package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;

/**
 * Turns the forwarded request into a uwsgi packet: a 4-byte header (modifier1 = 0, the size of the variables as a
 * little-endian 16-bit number, modifier2 = 0), the variables as pairs of little-endian 16-bit length-prefixed name
 * and value, then the body as it is (uWSGI reads {@code CONTENT_LENGTH} bytes of it).
 *
 * <p>The variables are nginx's {@code uwsgi_params}: see {@link CgiEnvironment}.
 *
 * <p>Ownership: a head is consumed (a full request's content goes out with the packet in one buffer); a body part
 * goes out as its buffer (the part's trailers, which uwsgi cannot carry, are dropped); a {@link CgiParams} is held
 * until its head. Variables over 64 KiB cannot be framed: the head is released, the write failed, and the
 * connection closed with a {@link UwsgiRequestTooLargeException}, which the exchange answers with 502.
 */
final class UwsgiEncoder extends CgiRequestEncoder {
    static final int MAX_VARS = 0xffff;

    UwsgiEncoder(ArrayDeque<HttpMethod> methods) {
        super(methods);
    }

    @Override
    void writeHead(ChannelHandlerContext ctx, HttpRequest head, CgiParams p, ChannelPromise promise) {
        ByteBuf packet = ctx.alloc().buffer(1024);
        int size;
        try {
            size = writeVars(packet, head, p);
        } catch (RuntimeException e) {
            packet.release();
            ReferenceCountUtil.release(head);
            throw e;
        }
        if (size > MAX_VARS) {
            packet.release();
            ReferenceCountUtil.release(head);
            UwsgiRequestTooLargeException tooLarge = new UwsgiRequestTooLargeException(size);
            promise.tryFailure(tooLarge);
            ctx.fireExceptionCaught(tooLarge);
            return;
        }
        packet.setShortLE(1, size);
        sent(head.method());
        if (head instanceof HttpContent whole && whole.content().isReadable()) {
            ByteBuf both = ctx.alloc().compositeBuffer(2).addComponents(true, packet, whole.content());
            ctx.write(both, promise);
        } else {
            ReferenceCountUtil.release(head);
            ctx.write(packet, promise);
        }
    }

    @Override
    void writeBody(ChannelHandlerContext ctx, HttpContent part, ChannelPromise promise) {
        ctx.write(part.content(), promise);
    }

    /** Writes the header (its size still 0) and the variables; returns the size of the variables. */
    private static int writeVars(ByteBuf out, HttpRequest head, CgiParams p) {
        out.writeByte(0).writeShortLE(0).writeByte(0);
        CgiEnvironment.forEach(head, p, (name, value) -> pair(out, name, value));
        return out.writerIndex() - 4;
    }

    private static void pair(ByteBuf out, String name, String value) {
        string(out, name);
        string(out, value);
    }

    /** A 16-bit little-endian length and the bytes; an over-long string is caught by the total size. */
    private static void string(ByteBuf out, String s) {
        if (latin1(s)) {
            out.writeShortLE(s.length());
            out.writeCharSequence(s, StandardCharsets.ISO_8859_1);
        } else {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            out.writeShortLE(bytes.length);
            out.writeBytes(bytes);
        }
    }

    private static boolean latin1(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0xff) {
                return false;
            }
        }
        return true;
    }
}
