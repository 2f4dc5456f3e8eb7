package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;

/**
 * Turns the forwarded request into FastCGI records, as nginx's {@code fastcgi_pass} sends them: BEGIN_REQUEST
 * (role RESPONDER, {@code FCGI_KEEP_CONN} when the upstream keeps connections), the variables
 * ({@link CgiEnvironment}) in PARAMS records and an empty one, the body in STDIN records of at most 64 KiB and an
 * empty one at its end.
 *
 * <p>Ownership: a head is consumed (a full request's content goes into STDIN with it); a body part's buffer is
 * sent as slices of it inside the records, the part itself released; a {@link CgiParams} is held until its head.
 * Trailers are dropped.
 */
final class FastCgiEncoder extends CgiRequestEncoder {
    private final boolean keepConn;

    FastCgiEncoder(ArrayDeque<HttpMethod> methods, boolean keepConn) {
        super(methods);
        this.keepConn = keepConn;
    }

    @Override
    void writeHead(ChannelHandlerContext ctx, HttpRequest head, CgiParams p, ChannelPromise promise) {
        CompositeByteBuf out = ctx.alloc().compositeBuffer();
        try {
            out.addComponent(true, begin(ctx));
            out.addComponent(true, paramsRecords(ctx, head, p));
            if (head instanceof HttpContent whole) {
                stdin(ctx, out, whole.content());
                stdin(ctx, out, null); // a full request: its body ends here
            }
        } catch (RuntimeException e) {
            out.release();
            ReferenceCountUtil.release(head);
            throw e;
        }
        sent(head.method());
        ReferenceCountUtil.release(head);
        ctx.write(out, promise);
    }

    @Override
    void writeBody(ChannelHandlerContext ctx, HttpContent part, ChannelPromise promise) {
        CompositeByteBuf out = ctx.alloc().compositeBuffer();
        try {
            stdin(ctx, out, part.content());
            if (part instanceof LastHttpContent) {
                stdin(ctx, out, null);
            }
        } finally {
            part.release();
        }
        ctx.write(out, promise);
    }

    private ByteBuf begin(ChannelHandlerContext ctx) {
        ByteBuf b = ctx.alloc().buffer(16);
        FastCgiRecords.header(b, FastCgiRecords.BEGIN_REQUEST, 8);
        b.writeShort(FastCgiRecords.RESPONDER).writeByte(keepConn ? FastCgiRecords.KEEP_CONN : 0).writeZero(5);
        return b;
    }

    /** The variables as name-value pairs, cut into PARAMS records, then the empty PARAMS that ends them. */
    private static ByteBuf paramsRecords(ChannelHandlerContext ctx, HttpRequest head, CgiParams p) {
        ByteBuf pairs = ctx.alloc().buffer(1024);
        ByteBuf out = ctx.alloc().buffer(1024 + 2 * FastCgiRecords.HEADER);
        try {
            CgiEnvironment.forEach(head, p, (name, value) -> {
                byte[] n = CgiEnvironment.bytes(name);
                byte[] v = CgiEnvironment.bytes(value);
                length(pairs, n.length);
                length(pairs, v.length);
                pairs.writeBytes(n).writeBytes(v);
            });
            while (pairs.isReadable()) {
                int n = Math.min(pairs.readableBytes(), FastCgiRecords.MAX_CONTENT);
                FastCgiRecords.header(out, FastCgiRecords.PARAMS, n);
                out.writeBytes(pairs, n);
            }
            FastCgiRecords.header(out, FastCgiRecords.PARAMS, 0);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        } finally {
            pairs.release();
        }
    }

    /** A pair's length: one byte below 128, else four with the high bit set. */
    private static void length(ByteBuf out, int length) {
        if (length < 128) {
            out.writeByte(length);
        } else {
            out.writeInt(length | 0x80000000);
        }
    }

    /** STDIN records holding slices of {@code body} (retained), or the empty record that ends it when null. */
    private static void stdin(ChannelHandlerContext ctx, CompositeByteBuf out, ByteBuf body) {
        if (body == null) {
            ByteBuf end = ctx.alloc().buffer(FastCgiRecords.HEADER);
            FastCgiRecords.header(end, FastCgiRecords.STDIN, 0);
            out.addComponent(true, end);
            return;
        }
        int index = body.readerIndex();
        int left = body.readableBytes();
        while (left > 0) {
            int n = Math.min(left, FastCgiRecords.MAX_CONTENT);
            ByteBuf h = ctx.alloc().buffer(FastCgiRecords.HEADER);
            FastCgiRecords.header(h, FastCgiRecords.STDIN, n);
            out.addComponent(true, h);
            out.addComponent(true, body.retainedSlice(index, n));
            index += n;
            left -= n;
        }
    }
}
