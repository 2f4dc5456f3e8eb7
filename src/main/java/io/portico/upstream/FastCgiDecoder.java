package io.portico.upstream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.portico.http1.FieldNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Reads a FastCGI response into the HTTP messages the exchange relays: the STDOUT stream's CGI head becomes an
 * HTTP/1.1 response head ({@code Status: 404 Not Found} its status, 200 without one, 302 for a Location without
 * one, as CGI says), the rest of STDOUT its body, END_REQUEST its end; STDERR goes to the server's error log
 * (rate limited, as nginx's "FastCGI sent in stderr"). The head's fields are a {@code http1.FieldList} and common
 * names the shared instances of {@code http1.FieldNames}, as in the HTTP upstream's heads ({@link UpstreamCodec}).
 *
 * <p>As strict as the HTTP decoder: a record of another version, request id or type, a head over
 * {@code maxHeaderSize} bytes or {@code maxFields} fields, a field without a name or with whitespace before its
 * colon or a control byte in its value, a Status that is not three digits from 200 to 599, Transfer-Encoding
 * (records frame the body), two Content-Length fields or one that is not a number, a body longer or shorter than
 * its Content-Length, an END_REQUEST before the head or with a protocol status other than complete: each becomes a
 * message with a failed decoder result (the exchange answers 502, or aborts a started response) and the rest of
 * the connection is dropped.
 *
 * <p>Bytes are decoded only while a request is outstanding (the encoder queued its method); anything else stays
 * in the buffer and counts as {@link #leftover}, so a connection with bytes beyond END_REQUEST is never reused.
 */
final class FastCgiDecoder extends ByteToMessageDecoder {
    private static final int MAX_STDERR_LOGGED = 200;
    /** CGI's status field, which becomes the status line and is not forwarded. */
    private static final AsciiString STATUS = AsciiString.cached("Status");

    private final ArrayDeque<HttpMethod> methods;
    private final int maxHeaderSize;
    private final int maxFields;
    private final ErrorLog errorLog; // null: nowhere (health checks)
    private ByteBuf head; // STDOUT bytes of a head not complete yet
    private boolean headDone;
    private boolean noBody;
    private long contentLength = -1;
    private long bodyBytes;
    private boolean broken;

    FastCgiDecoder(ArrayDeque<HttpMethod> methods, int maxHeaderSize, int maxFields, ErrorLog errorLog) {
        this.methods = methods;
        this.maxHeaderSize = maxHeaderSize;
        this.maxFields = maxFields;
        this.errorLog = errorLog;
    }

    /** Bytes received and not decoded (beyond a response's END_REQUEST), or 1 after a malformed record. */
    int leftover() {
        return broken ? 1 : actualReadableBytes();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!broken && !methods.isEmpty() && in.readableBytes() >= FastCgiRecords.HEADER) {
            int start = in.readerIndex();
            int version = in.getUnsignedByte(start);
            int type = in.getUnsignedByte(start + 1);
            int id = in.getUnsignedShort(start + 2);
            int length = in.getUnsignedShort(start + 4);
            int padding = in.getUnsignedByte(start + 6);
            if (version != FastCgiRecords.VERSION || id != FastCgiRecords.REQUEST_ID) {
                fail(in, out, "record version " + version + ", request id " + id + " (expected: 1 and 1)");
                return;
            }
            if (in.readableBytes() < FastCgiRecords.HEADER + length + padding) {
                return;
            }
            ByteBuf content = in.slice(start + FastCgiRecords.HEADER, length);
            in.skipBytes(FastCgiRecords.HEADER + length + padding);
            switch (type) {
                case FastCgiRecords.STDOUT -> stdout(in, content, out);
                case FastCgiRecords.STDERR -> stderr(content);
                case FastCgiRecords.END_REQUEST -> end(in, content, out);
                default -> fail(in, out, "record type " + type + " (expected: STDOUT, STDERR or END_REQUEST)");
            }
        }
    }

    /**
     * A head that arrives whole in one STDOUT record (PHP-FPM's usual: head and body in one) is parsed where it lies
     * in the received buffer; only a head split over records is gathered into a buffer of its own first.
     */
    private void stdout(ByteBuf in, ByteBuf content, List<Object> out) {
        if (headDone) {
            body(in, content, out);
            return;
        }
        ByteBuf b = content;
        if (head != null) {
            head.writeBytes(content);
            b = head;
        }
        int end = endOfHead(b);
        if (end < 0) {
            if (head == null) {
                head = in.alloc().buffer(Math.max(content.readableBytes(), 256));
                head.writeBytes(content);
            }
            if (head.readableBytes() > maxHeaderSize + LoopConnections.MAX_INITIAL_LINE) {
                fail(in, out, "response head over " + maxHeaderSize + " bytes");
            }
            return;
        }
        HttpObject response = response(b, end);
        ByteBuf rest = b.retainedSlice(end, b.writerIndex() - end);
        if (head != null) {
            head.release();
            head = null;
        }
        try {
            if (response == null) {
                fail(in, out, failure);
                return;
            }
            out.add(response);
            headDone = true;
            if (rest.isReadable()) {
                body(in, rest, out);
            }
        } finally {
            rest.release();
        }
    }

    private String failure;

    /** The head's end in {@code b} (indexed from 0): the index after its empty line (CRLF or LF line ends), or -1. */
    private static int endOfHead(ByteBuf b) {
        int n = b.writerIndex();
        for (int i = b.indexOf(0, n, (byte) '\n'); i >= 0; i = b.indexOf(i + 1, n, (byte) '\n')) {
            if (i + 1 < n && b.getByte(i + 1) == '\n') {
                return i + 2;
            }
            if (i + 2 < n && b.getByte(i + 1) == '\r' && b.getByte(i + 2) == '\n') {
                return i + 3;
            }
        }
        return -1;
    }

    /**
     * The HTTP response of the CGI head in {@code b} up to {@code end}, or null with {@link #failure} set. Lines
     * are read off the bytes (LF or CRLF ends), one string made per value and per name but a common one.
     */
    private HttpObject response(ByteBuf b, int end) {
        HttpHeaders headers = UpstreamCodec.RESPONSE_HEADERS.newHeaders();
        HttpResponseStatus status = null;
        int fields = 0;
        int size = 0;
        for (int start = 0, next; start < end; start = next) {
            int nl = b.indexOf(start, end, (byte) '\n');
            next = nl + 1;
            int lineEnd = nl > start && b.getByte(nl - 1) == '\r' ? nl - 1 : nl;
            if (lineEnd == start) {
                continue; // the empty line that ends the head
            }
            size += lineEnd - start;
            int colon = b.indexOf(start, lineEnd, (byte) ':');
            if (colon <= start || !token(b, start, colon)) {
                return failed("header line without a name and colon, or with whitespace before the colon");
            }
            if (++fields > maxFields || size > maxHeaderSize) {
                return failed("more than " + maxFields + " header fields or " + maxHeaderSize + " bytes");
            }
            AsciiString name = FieldNames.of(b, start, colon - start);
            int from = colon + 1;
            int to = lineEnd;
            while (from < to && Character.isWhitespace((char) b.getUnsignedByte(from))) {
                from++;
            }
            while (to > from && Character.isWhitespace((char) b.getUnsignedByte(to - 1))) {
                to--;
            }
            for (int i = from; i < to; i++) {
                int c = b.getUnsignedByte(i);
                if ((c < 0x20 && c != '\t') || c == 0x7f) {
                    return failed("control character in header " + name);
                }
            }
            String value = b.toString(from, to - from, StandardCharsets.ISO_8859_1);
            if (name.contentEqualsIgnoreCase(STATUS)) {
                if (status != null || !statusValue(value)) {
                    return failed("Status '" + printable(value) + "' (expected: one, three digits 200-599)");
                }
                int code = Integer.parseInt(value, 0, 3, 10);
                status = value.length() > 4 ? new HttpResponseStatus(code, value.substring(4))
                        : HttpResponseStatus.valueOf(code);
            } else if (name.contentEqualsIgnoreCase(HttpHeaderNames.TRANSFER_ENCODING)) {
                return failed("Transfer-Encoding (records frame a FastCGI body)");
            } else if (name.contentEqualsIgnoreCase(HttpHeaderNames.CONTENT_LENGTH)) {
                if (contentLength >= 0 || !digits(value, 1, 18)) {
                    return failed("Content-Length '" + printable(value) + "' (expected: one number)");
                }
                contentLength = Long.parseLong(value);
                headers.add(name, value);
            } else {
                headers.add(name, value);
            }
        }
        if (status == null) {
            status = headers.contains(HttpHeaderNames.LOCATION) ? HttpResponseStatus.FOUND : HttpResponseStatus.OK;
        }
        int code = status.code();
        noBody = HttpMethod.HEAD.equals(methods.peek()) || code == 204 || code == 304;
        return new DefaultHttpResponse(HttpVersion.HTTP_1_1, status, headers);
    }

    /** Three digits 200-599, then nothing or a space and a reason without a line terminator (U+0085 in Latin-1). */
    private static boolean statusValue(String v) {
        char first = v.isEmpty() ? 0 : v.charAt(0);
        if (first < '2' || first > '5' || v.length() < 3 || !digits(v.substring(1, 3), 2, 2)) {
            return false;
        }
        return v.length() == 3 || v.charAt(3) == ' ' && v.indexOf('\u0085', 4) < 0;
    }

    private static boolean digits(String v, int min, int max) {
        if (v.length() < min || v.length() > max) {
            return false;
        }
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private HttpObject failed(String why) {
        failure = why;
        return null;
    }

    private static boolean token(ByteBuf b, int start, int colon) {
        for (int i = start; i < colon; i++) {
            int c = b.getUnsignedByte(i);
            if (c <= ' ' || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    private void body(ByteBuf in, ByteBuf content, List<Object> out) {
        if (noBody || !content.isReadable()) {
            return;
        }
        bodyBytes += content.readableBytes();
        if (contentLength >= 0 && bodyBytes > contentLength) {
            fail(in, out, "body longer than its Content-Length " + contentLength);
            return;
        }
        out.add(new DefaultHttpContent(content.retainedSlice()));
    }

    private void stderr(ByteBuf content) {
        if (errorLog != null && content.isReadable()) {
            int n = Math.min(content.readableBytes(), MAX_STDERR_LOGGED);
            errorLog.warn("FastCGI sent in stderr: \"" + printable(content.toString(content.readerIndex(), n,
                    StandardCharsets.ISO_8859_1).strip()) + "\"");
        }
    }

    private void end(ByteBuf in, ByteBuf content, List<Object> out) {
        int protocolStatus = content.readableBytes() >= 5 ? content.getUnsignedByte(content.readerIndex() + 4) : -1;
        if (protocolStatus != 0) {
            fail(in, out, "END_REQUEST with protocol status " + protocolStatus + " (expected: 0, complete)");
            return;
        }
        if (!headDone) {
            fail(in, out, "END_REQUEST before a response head");
            return;
        }
        if (!noBody && contentLength >= 0 && bodyBytes != contentLength) {
            fail(in, out, "body of " + bodyBytes + " bytes, shorter than its Content-Length " + contentLength);
            return;
        }
        endBody(out);
        methods.poll();
        headDone = false;
        noBody = false;
        contentLength = -1;
        bodyBytes = 0;
    }

    /**
     * Adds the response's last message. When the body's last part came in the same read as END_REQUEST (PHP-FPM
     * sends both in one segment) that part becomes the last message itself: relayed apart, a part and an empty end
     * are two writes to a chunked client connection (the chunk, then the terminating {@code 0} chunk), where one
     * write carries both. A part decoded in this call is still in {@code out}, not yet passed on.
     */
    private static void endBody(List<Object> out) {
        int lastIndex = out.size() - 1;
        if (lastIndex >= 0 && out.get(lastIndex) instanceof DefaultHttpContent part
                && !(part instanceof LastHttpContent)) {
            out.set(lastIndex, new DefaultLastHttpContent(part.content()));
        } else {
            out.add(LastHttpContent.EMPTY_LAST_CONTENT);
        }
    }

    /** A malformed response: one failed message, the rest of the connection dropped. */
    private void fail(ByteBuf in, List<Object> out, String why) {
        broken = true;
        if (head != null) {
            head.release();
            head = null;
        }
        in.skipBytes(in.readableBytes());
        MalformedResponseException cause = new MalformedResponseException(why);
        if (headDone) {
            DefaultLastHttpContent last = new DefaultLastHttpContent();
            last.setDecoderResult(DecoderResult.failure(cause));
            out.add(last);
        } else {
            DefaultHttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_GATEWAY);
            r.setDecoderResult(DecoderResult.failure(cause));
            out.add(r);
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (head != null) {
            head.release();
            head = null;
        }
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_STDERR_LOGGED));
        for (int i = 0; i < s.length() && i < MAX_STDERR_LOGGED; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c > 0x7e || c == '"' ? '?' : c);
        }
        return b.toString();
    }
}
