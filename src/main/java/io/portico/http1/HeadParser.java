package io.portico.http1;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Reads one whole request head, already copied into a byte array whose line endings the decoder has checked (every
 * line ends in CRLF): the request line's three words, the field lines into a {@link FieldList} whose values are
 * views over that array, and the body's framing. One per connection, reused for each head; its results are read
 * right after {@link #parse} and belong to the request made from them.
 *
 * <p>Request line: method, target and version apart by SP (HTAB, VT, FF and CR pass as SP, RFC 9112 3 allows
 * it), nothing after the version; the method a token; the version {@code HTTP/1.1} or {@code HTTP/1.0}, letter case
 * included (RFC 9112 2.3). The target's characters are the framing handler's to judge. Framing (RFC 9112 6): at most
 * one Content-Length, its value digits only (at most 18: a longer one is over any limit, and would overflow), never
 * with Transfer-Encoding (the ambiguity request smuggling lives on); a Transfer-Encoding that lists {@code chunked}
 * frames the body as chunks. Which Transfer-Encoding values a request may carry at all is the framing handler's rule.
 */
final class HeadParser {
    private static final HttpMethod[] METHODS = {HttpMethod.GET, HttpMethod.POST, HttpMethod.HEAD, HttpMethod.PUT,
        HttpMethod.DELETE, HttpMethod.OPTIONS, HttpMethod.PATCH, HttpMethod.TRACE, HttpMethod.CONNECT};
    private static final byte[][] METHOD_BYTES = new byte[METHODS.length][];
    private static final byte[] HTTP_1_ = "HTTP/1.".getBytes(StandardCharsets.US_ASCII);
    private static final int MAX_LENGTH_DIGITS = 18;

    static {
        for (int i = 0; i < METHODS.length; i++) {
            METHOD_BYTES[i] = METHODS[i].name().getBytes(StandardCharsets.US_ASCII);
        }
    }

    HttpMethod method;
    HttpVersion version;
    String uri;
    FieldList fields;
    /** The body's length, 0 for none; -1 when it is chunked. */
    long contentLength;

    /**
     * Reads the head {@code b[0, length)}: its request line ends at {@code lineEnd} (the CR), and the empty line
     * that ends the head is its last two bytes, and {@code lines} field lines are between. The request line is read
     * first: when a field fails, {@link #method} already says which request it was.
     */
    void parse(byte[] b, int lineEnd, int length, int lines) {
        method = null;
        fields = null;
        requestLine(b, lineEnd);
        FieldList list = FieldList.decoded(lines);
        FieldSyntax.addLines(b, lineEnd + 2, length - 2, list);
        framing(list);
        fields = list;
    }

    /** The method of the request line {@code line}, or null when it has none that is valid. */
    static HttpMethod methodOf(byte[] line) {
        int i = 0;
        while (i < line.length && FieldSyntax.tchar(line[i])) {
            i++;
        }
        return i > 0 && (i == line.length || separator(line[i])) ? method(line, i) : null;
    }

    private void requestLine(byte[] b, int end) {
        int last = b[end - 1];
        if (last >= 0 && (last <= ' ' || last == 0x7f)) {
            throw new MalformedRequestException("whitespace at the end of the request line");
        }
        int i = 0;
        while (i < end && !separator(b[i])) {
            if (!FieldSyntax.tchar(b[i])) {
                throw new MalformedRequestException("invalid character 0x" + Integer.toHexString(b[i] & 0xff)
                        + " in the method");
            }
            i++;
        }
        HttpMethod m = method(b, i);
        int targetStart = skipSeparators(b, i, end);
        int targetEnd = targetStart;
        while (targetEnd < end && !separator(b[targetEnd])) {
            targetEnd++;
        }
        int versionStart = skipSeparators(b, targetEnd, end);
        version = version(b, versionStart, end);
        uri = new String(b, targetStart, targetEnd - targetStart, StandardCharsets.ISO_8859_1);
        method = m;
    }

    /** SP, and the whitespace RFC 9112 3 lets a recipient read as SP in a request line. */
    private static boolean separator(byte c) {
        return c == ' ' || c == '\t' || c == 0x0b || c == 0x0c || c == '\r';
    }

    private static int skipSeparators(byte[] b, int i, int end) {
        while (i < end && separator(b[i])) {
            i++;
        }
        return i;
    }

    /** The shared constant for a common method (compared byte by byte, no String), else a new one. */
    private static HttpMethod method(byte[] b, int length) {
        if (length == 0) {
            throw new MalformedRequestException("no method in the request line");
        }
        for (int m = 0; m < METHODS.length; m++) {
            byte[] name = METHOD_BYTES[m];
            if (name.length == length && same(b, 0, name)) {
                return METHODS[m];
            }
        }
        return HttpMethod.valueOf(new String(b, 0, length, StandardCharsets.US_ASCII));
    }

    private static HttpVersion version(byte[] b, int start, int end) {
        if (end - start == HTTP_1_.length + 1 && same(b, start, HTTP_1_)) {
            byte minor = b[end - 1];
            if (minor == '1') {
                return HttpVersion.HTTP_1_1;
            }
            if (minor == '0') {
                return HttpVersion.HTTP_1_0;
            }
        }
        throw new MalformedRequestException("unsupported version "
                + new String(b, start, end - start, StandardCharsets.ISO_8859_1));
    }

    private static boolean same(byte[] b, int at, byte[] expected) {
        for (int i = 0; i < expected.length; i++) {
            if (b[at + i] != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private void framing(FieldList list) {
        int lengths = 0;
        int encodings = 0;
        CharSequence length = null;
        for (int i = 0; i < list.size(); i++) {
            CharSequence name = list.name(i);
            if (is(name, HttpHeaderNames.CONTENT_LENGTH)) {
                lengths++;
                length = list.value(i);
            } else if (is(name, HttpHeaderNames.TRANSFER_ENCODING)) {
                encodings++;
            }
        }
        if (lengths > 1) {
            throw new MalformedRequestException("more than one Content-Length");
        }
        if (lengths == 1 && encodings > 0) {
            throw new MalformedRequestException("both Content-Length and Transfer-Encoding");
        }
        if (encodings > 0) {
            // Anything but chunked is refused by the framing handler; until then it frames no body.
            contentLength = list.containsValue(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED, true)
                    ? -1 : 0;
            return;
        }
        contentLength = length == null ? 0 : decimal(length);
    }

    private static boolean is(CharSequence name, AsciiString known) {
        return name == known || (name.length() == known.length() && known.contentEqualsIgnoreCase(name));
    }

    private static long decimal(CharSequence value) {
        int n = value.length();
        if (n == 0 || n > MAX_LENGTH_DIGITS) {
            throw new MalformedRequestException("Content-Length of " + n + " digits");
        }
        long v = 0;
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < '0' || c > '9') {
                throw new MalformedRequestException("Content-Length is not a number: " + value);
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }
}
