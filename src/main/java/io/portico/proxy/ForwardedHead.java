package io.portico.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.ReadOnlyHttpHeaders;
import io.netty.util.AsciiString;
import io.portico.upstream.HeadLines;
import io.portico.upstream.UpstreamServer;
import java.util.Iterator;
import java.util.Map;

/**
 * The head sent upstream, kept as a plan instead of a second headers object: the client's decoded fields go out as
 * they came (order and spelling), except those the rewrite owns, followed by the fields it adds, each a name and the
 * parts of its value (nothing is concatenated). The HTTP upstream's encoder writes the lines straight into the
 * head's buffer ({@link HeadLines}); a uwsgi or FastCGI upstream gets the same fields as headers ({@link #headers}).
 *
 * <p>A client field is left out when it is hop-by-hop or named by the client's Connection header, has an underscore
 * in its name (ambiguous with a dash to CGI-style apps), is Expect, is Content-Length while Portico frames the body
 * itself (chunked or buffered), is Host while Host is replaced, or is a name the location owns
 * ({@link OwnedFields}: forwarding headers, Via, set-request-headers). Event loop only.
 */
final class ForwardedHead {
    /** Ends a field's parts in {@link #added}: compared by identity. */
    private static final AsciiString END = new AsciiString("\u0000end");
    private static final AsciiString[] NONE = {};
    /** What a chunked head's headers say, for the encoder's framing only (its lines come from the plan). */
    private static final HttpHeaders CHUNKED = new ReadOnlyHttpHeaders(false,
            HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    /** The spelling the head had before this plan wrote it (Netty's headers, set with this name). */
    private static final AsciiString CONTENT_LENGTH = AsciiString.cached("Content-Length");
    private static final short COLON_SPACE = (':' << 8) | ' ';
    private static final short CRLF = ('\r' << 8) | '\n';

    private final HttpMethod method;
    private final String target;
    private final HttpHeaders client;
    private final AsciiString[] owned;
    /** Names the client's Connection header lists beyond the always-hop-by-hop ones; usually none. */
    private final AsciiString[] connectionNamed;
    /** Content-Length is Portico's: the body is re-chunked, or buffered and counted. */
    private final boolean framedHere;
    private final boolean chunked;
    private final boolean whole;
    private final boolean replaceHost;
    private CharSequence[] added = new CharSequence[24];
    private int size;
    private long contentLength = -1;

    ForwardedHead(HttpMethod method, String target, HttpHeaders client, AsciiString[] owned,
            AsciiString[] connectionNamed, boolean framedHere, boolean chunked, boolean whole, boolean replaceHost) {
        this.method = method;
        this.target = target;
        this.client = client;
        this.owned = owned;
        this.connectionNamed = connectionNamed;
        this.framedHere = framedHere;
        this.chunked = chunked;
        this.whole = whole;
        this.replaceHost = replaceHost;
    }

    // ---- building the fields Portico adds

    /** Starts a field that replaces any added before under the same name; its parts follow, then {@link #end}. */
    ForwardedHead set(CharSequence name) {
        remove(name);
        return part(name);
    }

    ForwardedHead part(CharSequence value) {
        if (size == added.length) {
            added = java.util.Arrays.copyOf(added, size * 2);
        }
        added[size++] = value;
        return this;
    }

    void end() {
        part(END);
    }

    /** Drops the added fields named {@code name} (the client's are left out by {@link OwnedFields}). */
    void remove(CharSequence name) {
        int i = 0;
        while (i < size) {
            int next = next(i);
            if (sameName(added[i], name)) {
                System.arraycopy(added, next, added, i, size - next);
                size -= next - i;
            } else {
                i = next;
            }
        }
    }

    /** The body was buffered whole: its length goes upstream instead of the client's framing. */
    void contentLength(long length) {
        contentLength = length;
    }

    /** Whether a field named {@code name} was added (and not removed since). */
    boolean adds(CharSequence name) {
        for (int i = 0; i < size; i = next(i)) {
            if (sameName(added[i], name)) {
                return true;
            }
        }
        return false;
    }

    private int next(int field) {
        int i = field + 1;
        while (added[i] != END) {
            i++;
        }
        return i + 1;
    }

    // ---- what goes upstream

    /** The message an HTTP upstream's encoder writes, for one attempt on {@code server}. */
    HttpRequest message(UpstreamServer server) {
        CharSequence host = replaceHost ? server.hostHeader() : null;
        if (whole) {
            return new Whole(this, host);
        }
        return new Streamed(this, host);
    }

    /** The same fields as headers, for the uwsgi and FastCGI encoders, which turn them into variables. */
    HttpRequest headers(UpstreamServer server) {
        HttpHeaders out = DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = client.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            if (!dropped(h.getKey())) {
                out.add(h.getKey(), h.getValue());
            }
        }
        for (int i = 0; i < size; ) {
            StringBuilder value = new StringBuilder();
            int j = i + 1;
            for (; added[j] != END; j++) {
                value.append(added[j]);
            }
            out.add(added[i], value.toString());
            i = j + 1;
        }
        if (contentLength >= 0) {
            out.set(CONTENT_LENGTH, contentLength);
        }
        if (replaceHost) {
            out.set(HttpHeaderNames.HOST, server.hostHeader());
        }
        if (whole) {
            return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, target, Unpooled.EMPTY_BUFFER, out,
                    LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders());
        }
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, method, target, out);
    }

    private void writeLines(ByteBuf buf, CharSequence host) {
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = client.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (!dropped(name)) {
                ByteBufUtil.writeAscii(buf, name);
                buf.writeShort(COLON_SPACE);
                ByteBufUtil.writeAscii(buf, h.getValue());
                buf.writeShort(CRLF);
            }
        }
        for (int i = 0; i < size; i++) {
            ByteBufUtil.writeAscii(buf, added[i]);
            buf.writeShort(COLON_SPACE);
            for (i++; added[i] != END; i++) {
                ByteBufUtil.writeAscii(buf, added[i]);
            }
            buf.writeShort(CRLF);
        }
        if (contentLength >= 0) {
            ByteBufUtil.writeAscii(buf, CONTENT_LENGTH);
            buf.writeShort(COLON_SPACE);
            writeDecimal(buf, contentLength);
            buf.writeShort(CRLF);
        }
        if (host != null) {
            ByteBufUtil.writeAscii(buf, HttpHeaderNames.HOST);
            buf.writeShort(COLON_SPACE);
            ByteBufUtil.writeAscii(buf, host);
            buf.writeShort(CRLF);
        }
    }

    private static void writeDecimal(ByteBuf buf, long n) {
        if (n >= 10) {
            writeDecimal(buf, n / 10);
        }
        buf.writeByte((int) ('0' + n % 10));
    }

    private boolean dropped(CharSequence name) {
        int n = name.length();
        if (HopByHop.always(name) || hasUnderscore(name)) {
            return true;
        }
        if (n == 6 && HttpHeaderNames.EXPECT.contentEqualsIgnoreCase(name)
                || n == 14 && framedHere && HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)
                || n == 4 && replaceHost && HttpHeaderNames.HOST.contentEqualsIgnoreCase(name)) {
            return true;
        }
        return OwnedFields.contains(owned, name) || OwnedFields.contains(connectionNamed, name);
    }

    private static boolean sameName(CharSequence a, CharSequence b) {
        return a.length() == b.length() && AsciiString.contentEqualsIgnoreCase(a, b);
    }

    private static boolean hasUnderscore(CharSequence name) {
        for (int i = 0; i < name.length(); i++) {
            if (name.charAt(i) == '_') {
                return true;
            }
        }
        return false;
    }

    /**
     * The names that the client's Connection fields list and that are not hop-by-hop anyway (nor "close", nor
     * Content-Length, see below).
     */
    static AsciiString[] connectionNamed(HttpHeaders client) {
        AsciiString[] names = NONE;
        for (Iterator<? extends CharSequence> it = client.valueCharSequenceIterator(HttpHeaderNames.CONNECTION);
                it.hasNext(); ) {
            CharSequence v = it.next();
            int start = 0;
            for (int i = 0; i <= v.length(); i++) {
                if (i == v.length() || v.charAt(i) == ',') {
                    CharSequence token = strip(v, start, i);
                    start = i + 1;
                    // Content-Length is never dropped for being named: the body still goes with the client's
                    // framing, and a body without its length would be read by the upstream as the next request.
                    if (token.length() > 0 && !HopByHop.always(token)
                            && !HttpHeaderValues.CLOSE.contentEqualsIgnoreCase(token)
                            && !HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(token)) {
                        names = java.util.Arrays.copyOf(names, names.length + 1);
                        names[names.length - 1] = new AsciiString(token.toString());
                    }
                }
            }
        }
        return names;
    }

    /** {@code v[from, to)} without surrounding blanks, as a view (no copy). */
    private static CharSequence strip(CharSequence v, int from, int to) {
        while (from < to && (v.charAt(from) == ' ' || v.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (v.charAt(to - 1) == ' ' || v.charAt(to - 1) == '\t')) {
            to--;
        }
        return v.subSequence(from, to);
    }

    private HttpHeaders framingHeaders() {
        return chunked && contentLength < 0 ? CHUNKED : EmptyHttpHeaders.INSTANCE;
    }

    /** A head with a body to follow (streamed or buffered). */
    private static final class Streamed extends DefaultHttpRequest implements HeadLines {
        private final ForwardedHead plan;
        private final CharSequence host;

        Streamed(ForwardedHead plan, CharSequence host) {
            super(HttpVersion.HTTP_1_1, plan.method, plan.target, plan.framingHeaders());
            this.plan = plan;
            this.host = host;
        }

        @Override
        public void writeHeaderLines(ByteBuf buf) {
            plan.writeLines(buf, host);
        }
    }

    /**
     * A request that arrived whole without a body (see server.ServerCodec) and goes upstream as one message. Its
     * content is the shared empty buffer, so the encoder's release leaves it whole for a retry.
     */
    private static final class Whole extends DefaultFullHttpRequest implements HeadLines {
        private final ForwardedHead plan;
        private final CharSequence host;

        Whole(ForwardedHead plan, CharSequence host) {
            super(HttpVersion.HTTP_1_1, plan.method, plan.target, Unpooled.EMPTY_BUFFER, plan.framingHeaders(),
                    EmptyHttpHeaders.INSTANCE);
            this.plan = plan;
            this.host = host;
        }

        @Override
        public void writeHeaderLines(ByteBuf buf) {
            plan.writeLines(buf, host);
        }
    }
}
