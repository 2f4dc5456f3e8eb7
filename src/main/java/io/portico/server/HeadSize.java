package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpMessageDecoderResult;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.util.ByteProcessor;

/**
 * {@code limits.max-header-size}, counted exactly: the header field lines as they were sent, each with its CRLF
 * (obs-fold continuation lines included), and neither the request line nor the empty line that ends the head.
 * Netty's decoder counts the same lines without their CRLFs; it keeps that bound as the guard while a head
 * arrives (so at most the limit plus two bytes a line is ever buffered), and this check decides once the head
 * is whole: one byte over gets 431.
 */
final class HeadSize {
    /** What Netty's decoder skips before a request line: control characters and whitespace. */
    private static final ByteProcessor SKIPPED = b -> b >= 0 && (b <= ' ' || b == 0x7f);

    private final int max;

    HeadSize(int max) {
        this.max = max;
    }

    /** How many bytes at the start of {@code in} the decoder skips before a request line (not consumed here). */
    static int leadingSkipped(ByteBuf in) {
        int first = in.forEachByte(SKIPPED);
        return first < 0 ? in.readableBytes() : first - in.readerIndex();
    }

    /**
     * Fails {@code request} with 431 when its field lines are over the limit.
     *
     * @param consumed the bytes the decoder consumed for this head, from its request line to its empty line
     */
    void check(HttpRequest request, long consumed) {
        if (request.decoderResult() instanceof HttpMessageDecoderResult result) {
            long fields = consumed - result.initialLineLength() - 4; // the request line's CRLF, the empty line
            if (fields > max) {
                request.setDecoderResult(DecoderResult.failure(new TooLongHttpHeaderException(
                        "header fields of " + fields + " bytes, over max-header-size " + max)));
            }
        }
    }
}
