package io.portico.bench;

import io.netty.buffer.ByteBuf;

/**
 * Frames HTTP/1.x responses straight from the received bytes, the way wrk does: it reads the status, finds the end
 * of the headers, follows Content-Length, chunked or read-until-close framing and counts body bytes, and builds no
 * object per response (a load generator only needs the status, the body length and the keep-alive decision).
 * One per connection attempt, reset per request; used on one event loop only.
 *
 * <p>{@link #parse} consumes what it can; a header or chunk-size line cut by a read is left unread, so the caller
 * keeps those bytes and offers them again with the next read. Body bytes are counted and skipped, never kept.
 */
final class ResponseParser {

    /** Longest status, header or chunk-size line accepted (Netty's client decoder allows 8 KiB of headers). */
    static final int MAX_LINE = 16 * 1024;

    private enum State { STATUS_LINE, HEADERS, FIXED_BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UNTIL_CLOSE,
        DONE }

    private State state = State.STATUS_LINE;
    private boolean head;
    private int status;
    private boolean http10;
    private boolean closeHeader;
    private boolean keepAliveHeader;
    private boolean chunked;
    private long contentLength;
    private long remaining;
    private long bodyBytes;
    /** The line being read, copied out of the buffer (grown up to {@link #MAX_LINE} for long lines). */
    private byte[] line = new byte[256];

    /** Ready for the response to a new request ({@code head}: a HEAD request, whose response has no body). */
    void reset(boolean headRequest) {
        state = State.STATUS_LINE;
        head = headRequest;
        status = 0;
        bodyBytes = 0;
    }

    int status() {
        return status;
    }

    long bodyBytes() {
        return bodyBytes;
    }

    /** Whether the server lets the connection be reused (HTTP/1.1 without Connection: close, or 1.0 keep-alive). */
    boolean keepAlive() {
        return state != State.UNTIL_CLOSE && !closeHeader && (!http10 || keepAliveHeader);
    }

    /** True when the connection closing now ends the response (its body was delimited by the close). */
    boolean closeCompletes() {
        return state == State.UNTIL_CLOSE;
    }

    /** Consumes bytes of {@code in}; true once the response is complete (bytes after it are left unread). */
    boolean parse(ByteBuf in) throws MalformedResponseException {
        while (in.isReadable()) {
            switch (state) {
                case FIXED_BODY, CHUNK_DATA -> {
                    int n = (int) Math.min(remaining, in.readableBytes());
                    in.skipBytes(n);
                    bodyBytes += n;
                    remaining -= n;
                    if (remaining == 0) {
                        state = state == State.FIXED_BODY ? State.DONE : State.CHUNK_END;
                    }
                }
                case UNTIL_CLOSE -> {
                    bodyBytes += in.readableBytes();
                    in.skipBytes(in.readableBytes());
                }
                case DONE -> {
                    return true;
                }
                default -> {
                    int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
                    if (lf < 0) {
                        if (in.readableBytes() > MAX_LINE) {
                            throw new MalformedResponseException("a response line longer than " + MAX_LINE + " bytes");
                        }
                        return false;
                    }
                    int start = in.readerIndex();
                    int end = lf > start && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
                    in.readerIndex(lf + 1);
                    line(in, start, end - start);
                }
            }
        }
        return state == State.DONE;
    }

    /** One line of {@code length} bytes at {@code start} (line end excluded); only lines that matter are copied. */
    private void line(ByteBuf in, int start, int length) throws MalformedResponseException {
        switch (state) {
            case STATUS_LINE -> {
                if (length > 0) { // empty lines before a status line are skipped, as Netty's decoder does
                    statusLine(copy(in, start, Math.min(length, 12)), length);
                }
            }
            case HEADERS -> {
                if (length == 0) {
                    headersDone();
                } else if (HeaderLine.mayMatter(in.getByte(start))) {
                    HeaderLine.apply(this, copy(in, start, length), 0, length);
                }
            }
            case CHUNK_SIZE -> {
                remaining = HeaderLine.chunkSize(copy(in, start, length), 0, length);
                state = remaining == 0 ? State.TRAILERS : State.CHUNK_DATA;
            }
            case CHUNK_END -> state = State.CHUNK_SIZE;
            case TRAILERS -> {
                if (length == 0) {
                    state = State.DONE;
                }
            }
            default -> throw new IllegalStateException(state.name());
        }
    }

    private byte[] copy(ByteBuf in, int start, int length) {
        if (length > line.length) {
            line = new byte[Math.max(length, Math.min(MAX_LINE, line.length * 2))];
        }
        in.getBytes(start, line, 0, length);
        return line;
    }

    /** {@code in} starts with the first (at most 12) bytes of the status line, {@code length} bytes long. */
    private void statusLine(byte[] in, int length) throws MalformedResponseException {
        if (length < 12 || !HeaderLine.startsWith(in, 0, "HTTP/1.") || in[8] != ' ') {
            throw new MalformedResponseException("not an HTTP/1.x status line");
        }
        int code = 0;
        for (int i = 9; i < 12; i++) {
            int d = in[i] - '0';
            if (d < 0 || d > 9) {
                throw new MalformedResponseException("bad status code");
            }
            code = code * 10 + d;
        }
        status = code;
        http10 = in[7] == '0';
        closeHeader = false;
        keepAliveHeader = false;
        chunked = false;
        contentLength = -1;
        state = State.HEADERS;
    }

    private void headersDone() {
        if (status >= 100 && status < 200 && status != 101) {
            state = State.STATUS_LINE; // an interim response (100 Continue): the real one follows
            return;
        }
        if (head || status == 101 || status == 204 || status == 304) {
            state = State.DONE;
            closeHeader |= status == 101;
        } else if (chunked) {
            state = State.CHUNK_SIZE;
        } else if (contentLength >= 0) {
            remaining = contentLength;
            state = contentLength == 0 ? State.DONE : State.FIXED_BODY;
        } else {
            state = State.UNTIL_CLOSE;
        }
    }

    void contentLength(long length) {
        contentLength = length;
    }

    void chunked() {
        chunked = true;
    }

    void connection(boolean close, boolean keepAlive) {
        closeHeader |= close;
        keepAliveHeader |= keepAlive;
    }
}
