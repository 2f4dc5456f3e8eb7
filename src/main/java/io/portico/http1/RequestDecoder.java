package io.portico.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ByteProcessor;
import java.util.List;
import java.util.Queue;

/**
 * The client's HTTP/1 request decoder. A head is found whole in the bytes received before anything of it is read
 * (the end of the request line, then the empty line, each bounded as it arrives), copied once into one array, and
 * read from there by {@link HeadParser}: field values are views over that array, common names shared instances, and
 * only the target becomes a String. A request without a body goes up as one {@code FullHttpRequest}; one with a
 * body as its head, then contents that are retained slices of the bytes received (at most 64 KiB each) up to a
 * {@code LastHttpContent} (Content-Length, or {@link ChunkedBody}). Several requests in one read (pipelining) are
 * decoded one after the other; the next head is not read before the current request's end.
 *
 * <p>Bounds: the request line at most {@code max-request-line} bytes without its CRLF (414), the field lines at most
 * {@code max-header-size} bytes counted as sent, CRLFs included ({@link SectionScanner}; 431). Control bytes and
 * whitespace before a request line are skipped (RFC 9112 2.2: a client may send CRLF after a body), up to
 * {@code max-request-line} of them. Whatever breaks the syntax or framing is a failed message
 * ({@link MalformedRequestException}: 400): a head's as a request whose {@link DecoderResult} failed, a body's as
 * a failed last content; the framing handler answers it and closes, and every later byte is dropped unread.
 *
 * <p>Each request's method is added to {@code methods}, which the response encoder polls (a response to HEAD has
 * no body). Event loop only.
 */
public final class RequestDecoder extends ByteToMessageDecoder {
    static final int MAX_CONTENT = 64 * 1024;
    private static final byte CR = '\r';
    private static final byte LF = '\n';
    /** What is skipped before a request line: control bytes and whitespace. */
    private static final ByteProcessor SKIPPED = b -> b >= 0 && (b <= ' ' || b == 0x7f);

    private enum State { HEAD, FIXED_BODY, CHUNKED_BODY, BROKEN }

    private final int maxRequestLine;
    private final int maxHeaderSize;
    private final Queue<HttpMethod> methods;
    private final HeadParser parser = new HeadParser();
    private final SectionScanner fields = new SectionScanner();
    private final ChunkedBody chunked;
    private State state = State.HEAD;
    /** Bytes skipped before the current head's request line. */
    private int skipped;
    /** The offset of the request line's CR from the head's first byte, once it has arrived; else -1. */
    private int lineEnd = -1;
    /** How far the request line was searched for its LF. */
    private int lineSearched;
    /** Bytes of a Content-Length body still to come. */
    private long remaining;

    public RequestDecoder(int maxRequestLine, int maxHeaderSize, Queue<HttpMethod> methods) {
        this.maxRequestLine = maxRequestLine;
        this.maxHeaderSize = maxHeaderSize;
        this.methods = methods;
        this.chunked = new ChunkedBody(Math.min(ChunkedBody.MAX_LINE, maxRequestLine), maxHeaderSize);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (state) {
            case HEAD -> head(in, out);
            case FIXED_BODY -> fixedBody(in, out);
            case CHUNKED_BODY -> chunkedBody(in, out);
            case BROKEN -> in.skipBytes(in.readableBytes()); // nothing after a refused message is read
        }
    }

    private void head(ByteBuf in, List<Object> out) {
        byte[] head = null;
        try {
            if (lineEnd < 0 && !requestLine(in)) {
                return;
            }
            int fieldsFrom = lineEnd + 2;
            int end = fields.end(in, in.readerIndex() + fieldsFrom, maxHeaderSize);
            if (end < 0) {
                return;
            }
            int length = fieldsFrom + end;
            head = new byte[length];
            in.readBytes(head);
            parser.parse(head, lineEnd, length, fields.lines());
        } catch (IllegalArgumentException | TooLongFrameException e) { // MalformedRequestException, 414, 431
            // The request's method when its request line was read (the parser's, or from the bytes still here).
            HttpMethod method = head != null ? parser.method : lineEnd >= 0 ? methodOf(in) : null;
            failHead(in, out, e, method);
            return;
        }
        emit(out);
    }

    private HttpMethod methodOf(ByteBuf in) {
        byte[] line = new byte[lineEnd];
        in.getBytes(in.readerIndex(), line);
        return HeadParser.methodOf(line);
    }

    /** Skips what precedes a request line and finds its end: false while it has not arrived. */
    private boolean requestLine(ByteBuf in) {
        if (lineSearched == 0) {
            int first = in.forEachByte(SKIPPED);
            int n = first < 0 ? in.readableBytes() : first - in.readerIndex();
            in.skipBytes(n);
            skipped += n;
            if (skipped > maxRequestLine) {
                throw new TooLongHttpLineException("over " + maxRequestLine + " bytes before a request line");
            }
            if (first < 0) {
                return false;
            }
        }
        int from = in.readerIndex();
        int readable = in.readableBytes();
        int limit = (int) Math.min(readable, maxRequestLine + 2L);
        int lf = in.indexOf(from + lineSearched, from + limit, LF);
        if (lf < 0) {
            if (readable >= maxRequestLine + 2L) {
                throw new TooLongHttpLineException("request line over max-request-line " + maxRequestLine);
            }
            lineSearched = limit;
            return false;
        }
        if (in.getByte(lf - 1) != CR) { // lf > from: the line's first byte is no control byte
            throw new MalformedRequestException("a request line ending in a bare LF");
        }
        lineEnd = lf - 1 - from;
        fields.reset();
        return true;
    }

    private void emit(List<Object> out) {
        HeadParser h = parser;
        methods.add(h.method);
        if (h.contentLength == 0) {
            // The request line was checked by the parser: the message does not check it again.
            out.add(new DefaultFullHttpRequest(h.version, h.method, h.uri, Unpooled.EMPTY_BUFFER, h.fields,
                    LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders(), false));
            nextHead();
            return;
        }
        out.add(new DefaultHttpRequest(h.version, h.method, h.uri, h.fields, false));
        if (h.contentLength < 0) {
            chunked.start();
            state = State.CHUNKED_BODY;
        } else {
            remaining = h.contentLength;
            state = State.FIXED_BODY;
        }
    }

    private void fixedBody(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(Math.min(remaining, in.readableBytes()), MAX_CONTENT);
        if (n == 0) {
            return;
        }
        ByteBuf content = in.readRetainedSlice(n);
        remaining -= n;
        if (remaining == 0) {
            // The shared empty trailers (read-only): a request's end made here has none.
            out.add(new DefaultLastHttpContent(content, LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders()));
            nextHead();
        } else {
            out.add(new DefaultHttpContent(content));
        }
    }

    private void chunkedBody(ByteBuf in, List<Object> out) {
        try {
            if (chunked.decode(in, out)) {
                nextHead();
            }
        } catch (IllegalArgumentException | TooLongFrameException e) { // MalformedRequestException, 431 (trailers)
            state = State.BROKEN;
            in.skipBytes(in.readableBytes());
            LastHttpContent end = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
            end.setDecoderResult(DecoderResult.failure(e));
            out.add(end);
        }
    }

    private void nextHead() {
        state = State.HEAD;
        skipped = 0;
        lineEnd = -1;
        lineSearched = 0;
    }

    /** Refuses the head: a failed request (its method when its request line was read), then nothing more. */
    private void failHead(ByteBuf in, List<Object> out, Exception cause, HttpMethod known) {
        state = State.BROKEN;
        in.skipBytes(in.readableBytes());
        HttpMethod method = known != null ? known : HttpMethod.GET;
        HttpRequest failed = new DefaultFullHttpRequest(HttpVersion.HTTP_1_0, method, "/bad-request",
                Unpooled.EMPTY_BUFFER, FieldList.decoded(0), LastHttpContent.EMPTY_LAST_CONTENT.trailingHeaders(),
                false);
        failed.setDecoderResult(DecoderResult.failure(cause));
        methods.add(method);
        out.add(failed);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (state == State.HEAD && lineEnd >= 0) {
            // A head cut short after its request line: refused as such (a body cut short just ends).
            failHead(in, out, new PrematureChannelClosureException("connection closed before the head's end"),
                    in.readableBytes() >= lineEnd ? methodOf(in) : null);
        }
    }
}
