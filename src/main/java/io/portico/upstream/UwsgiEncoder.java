package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the forwarded request into a uwsgi packet: a 4-byte header (modifier1 = 0, the size of the variables as a
 * little-endian 16-bit number, modifier2 = 0), the variables as pairs of little-endian 16-bit length-prefixed name
 * and value, then the body as it is (uWSGI reads {@code CONTENT_LENGTH} bytes of it).
 *
 * <p>The variables are nginx's {@code uwsgi_params}: the {@link CgiParams} written just before the head, plus
 * {@code REQUEST_METHOD}, {@code REQUEST_URI}, {@code PATH_INFO} (the path decoded, as nginx's
 * {@code $document_uri}), {@code QUERY_STRING}, {@code CONTENT_TYPE} and {@code CONTENT_LENGTH} (empty when
 * absent, as nginx sends them) and an {@code HTTP_*} variable per header field (the name upper-cased, dashes as
 * underscores; repeated fields joined with ", ", Cookie with "; ", as nginx 1.23 does), each unless the
 * {@link CgiParams} set it. Hop-by-hop fields mean nothing in uwsgi and are not sent.
 *
 * <p>Ownership: a head is consumed (a full request's content goes out with the packet in one buffer); a body part
 * goes out as its buffer (the part's trailers, which uwsgi cannot carry, are dropped); a {@link CgiParams} is held
 * until its head. Variables over 64 KiB cannot be framed: the head is released, the write failed, and the
 * connection closed with a {@link UwsgiRequestTooLargeException}, which the exchange answers with 502.
 */
final class UwsgiEncoder extends ChannelOutboundHandlerAdapter {
    static final int MAX_VARS = 0xffff;

    private final ArrayDeque<HttpMethod> methods;
    private CgiParams params;

    UwsgiEncoder(ArrayDeque<HttpMethod> methods) {
        this.methods = methods;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof CgiParams p) {
            params = p;
            promise.trySuccess();
            return;
        }
        if (msg instanceof HttpRequest head) {
            CgiParams p = params;
            params = null;
            ByteBuf packet = ctx.alloc().buffer(1024);
            int size;
            try {
                size = writeVars(packet, head, p);
            } catch (RuntimeException e) {
                packet.release();
                ReferenceCountUtil.release(msg);
                throw e;
            }
            if (size > MAX_VARS) {
                packet.release();
                ReferenceCountUtil.release(msg);
                UwsgiRequestTooLargeException tooLarge = new UwsgiRequestTooLargeException(size);
                promise.tryFailure(tooLarge);
                ctx.fireExceptionCaught(tooLarge);
                return;
            }
            packet.setShortLE(1, size);
            methods.add(head.method());
            if (msg instanceof HttpContent whole && whole.content().isReadable()) {
                ByteBuf both = ctx.alloc().compositeBuffer(2).addComponents(true, packet, whole.content());
                ctx.write(both, promise);
            } else {
                ReferenceCountUtil.release(msg);
                ctx.write(packet, promise);
            }
            return;
        }
        if (msg instanceof HttpContent part) {
            ctx.write(part.content(), promise);
            return;
        }
        ctx.write(msg, promise);
    }

    /** Writes the header (its size still 0) and the variables; returns the size of the variables. */
    private static int writeVars(ByteBuf out, HttpRequest head, CgiParams p) {
        out.writeByte(0).writeShortLE(0).writeByte(0);
        String uri = head.uri();
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        derived(out, p, "REQUEST_METHOD", head.method().name());
        derived(out, p, "REQUEST_URI", uri);
        derived(out, p, "PATH_INFO", percentDecoded(path));
        derived(out, p, "QUERY_STRING", q < 0 ? "" : uri.substring(q + 1));
        derived(out, p, "CONTENT_TYPE", orEmpty(head.headers().get(HttpHeaderNames.CONTENT_TYPE)));
        derived(out, p, "CONTENT_LENGTH", orEmpty(head.headers().get(HttpHeaderNames.CONTENT_LENGTH)));
        if (p != null) {
            for (int i = 0; i < p.size(); i++) {
                pair(out, p.name(i), p.value(i));
            }
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = head.headers().iteratorCharSequence();
                it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (notSent(name)) {
                continue;
            }
            String var = "HTTP_" + name.toString().toUpperCase(Locale.ROOT).replace('-', '_');
            String value = h.getValue().toString();
            String separator = HttpHeaderNames.COOKIE.contentEqualsIgnoreCase(name) ? "; " : ", ";
            fields.merge(var, value, (a, b) -> a + separator + b);
        }
        for (Map.Entry<String, String> f : fields.entrySet()) {
            derived(out, p, f.getKey(), f.getValue());
        }
        return out.writerIndex() - 4;
    }

    /** Content-Type and -Length have their own variables; framing and hop-by-hop fields mean nothing here. */
    private static boolean notSent(CharSequence name) {
        return HttpHeaderNames.CONTENT_TYPE.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.KEEP_ALIVE.contentEqualsIgnoreCase(name);
    }

    private static void derived(ByteBuf out, CgiParams p, String name, String value) {
        if (p == null || !p.has(name)) {
            pair(out, name, value);
        }
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

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    /**
     * The path with its percent-encodings decoded to the bytes they stand for (one char per byte, sent as that
     * byte): PATH_INFO is decoded, as nginx's {@code $document_uri} and CGI want. The normalized path has only
     * valid encodings ({@code config.RequestPath}); anything else is kept as written.
     */
    static String percentDecoded(String path) {
        int pct = path.indexOf('%');
        if (pct < 0) {
            return path;
        }
        StringBuilder b = new StringBuilder(path.length()).append(path, 0, pct);
        for (int i = pct; i < path.length(); i++) {
            char c = path.charAt(i);
            int hi;
            int lo;
            if (c == '%' && i + 2 < path.length() && (hi = Character.digit(path.charAt(i + 1), 16)) >= 0
                    && (lo = Character.digit(path.charAt(i + 2), 16)) >= 0) {
                b.append((char) (hi << 4 | lo));
                i += 2;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
