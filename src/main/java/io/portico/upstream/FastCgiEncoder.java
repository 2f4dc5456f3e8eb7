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
import java.nio.charset.StandardCharsets;
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

    /**
     * BEGIN_REQUEST and the PARAMS records go in one buffer, and so does the empty STDIN of a request without a
     * body (a GET is one buffer, one write); a body goes as slices of its buffer after them.
     */
    @Override
    void writeHead(ChannelHandlerContext ctx, HttpRequest head, CgiParams p, ChannelPromise promise) {
        ByteBuf out = ctx.alloc().buffer(1024);
        ByteBuf whole = out;
        try {
            begin(out);
            paramsRecords(ctx, out, head, p);
            if (head instanceof HttpContent full) {
                if (full.content().isReadable()) {
                    CompositeByteBuf c = ctx.alloc().compositeBuffer();
                    whole = c.addComponent(true, out);
                    stdin(ctx, c, full.content());
                    stdinEnd(ctx, c); // a full request: its body ends here
                } else {
                    stdinEnd(out);
                }
            }
        } catch (RuntimeException e) {
            whole.release();
            ReferenceCountUtil.release(head);
            throw e;
        }
        sent(head.method());
        ReferenceCountUtil.release(head);
        ctx.write(whole, promise);
    }

    @Override
    void writeBody(ChannelHandlerContext ctx, HttpContent part, ChannelPromise promise) {
        CompositeByteBuf out = ctx.alloc().compositeBuffer();
        try {
            stdin(ctx, out, part.content());
            if (part instanceof LastHttpContent) {
                stdinEnd(ctx, out);
            }
        } finally {
            part.release();
        }
        ctx.write(out, promise);
    }

    private void begin(ByteBuf b) {
        FastCgiRecords.header(b, FastCgiRecords.BEGIN_REQUEST, 8);
        b.writeShort(FastCgiRecords.RESPONDER).writeByte(keepConn ? FastCgiRecords.KEEP_CONN : 0).writeZero(5);
    }

    /**
     * The variables as name-value pairs in PARAMS records, then the empty PARAMS that ends them. The pairs are
     * written after one record header whose length is filled in after; only variables over 64 KiB in all are copied
     * out again to be cut into records of at most that.
     */
    private static void paramsRecords(ChannelHandlerContext ctx, ByteBuf out, HttpRequest head, CgiParams p) {
        int header = out.writerIndex();
        FastCgiRecords.header(out, FastCgiRecords.PARAMS, 0);
        int start = out.writerIndex();
        CgiEnvironment.forEach(head, p, (name, value) -> {
            boolean latinName = latin1(name);
            boolean latinValue = latin1(value);
            byte[] n = latinName ? null : name.getBytes(StandardCharsets.UTF_8);
            byte[] v = latinValue ? null : value.getBytes(StandardCharsets.UTF_8);
            length(out, latinName ? name.length() : n.length);
            length(out, latinValue ? value.length() : v.length);
            bytes(out, name, n);
            bytes(out, value, v);
        });
        int size = out.writerIndex() - start;
        if (size <= FastCgiRecords.MAX_CONTENT) {
            out.setShort(header + 4, size);
        } else {
            ByteBuf pairs = ctx.alloc().buffer(size);
            try {
                pairs.writeBytes(out, start, size);
                out.writerIndex(header);
                while (pairs.isReadable()) {
                    int n = Math.min(pairs.readableBytes(), FastCgiRecords.MAX_CONTENT);
                    FastCgiRecords.header(out, FastCgiRecords.PARAMS, n);
                    out.writeBytes(pairs, n);
                }
            } finally {
                pairs.release();
            }
        }
        if (size > 0) {
            FastCgiRecords.header(out, FastCgiRecords.PARAMS, 0);
        }
    }

    /** A string's bytes: one per char when all are up to U+00FF (header values hold the bytes received), else UTF-8. */
    private static void bytes(ByteBuf out, String s, byte[] utf8) {
        if (utf8 == null) {
            out.writeCharSequence(s, StandardCharsets.ISO_8859_1);
        } else {
            out.writeBytes(utf8);
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

    /** A pair's length: one byte below 128, else four with the high bit set. */
    private static void length(ByteBuf out, int length) {
        if (length < 128) {
            out.writeByte(length);
        } else {
            out.writeInt(length | 0x80000000);
        }
    }

    /** The empty STDIN record that ends the body, at the end of {@code out}. */
    private static void stdinEnd(ByteBuf out) {
        FastCgiRecords.header(out, FastCgiRecords.STDIN, 0);
    }

    /** The empty STDIN record that ends the body, as the last component of {@code out}. */
    private static void stdinEnd(ChannelHandlerContext ctx, CompositeByteBuf out) {
        ByteBuf end = ctx.alloc().buffer(FastCgiRecords.HEADER);
        stdinEnd(end);
        out.addComponent(true, end);
    }

    /** STDIN records holding slices of {@code body} (retained). */
    private static void stdin(ChannelHandlerContext ctx, CompositeByteBuf out, ByteBuf body) {
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
