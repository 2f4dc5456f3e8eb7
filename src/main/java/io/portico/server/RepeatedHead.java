package io.portico.server;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.portico.http1.FieldList;
import java.util.Iterator;
import java.util.Map;

/**
 * The head (status line and header lines) of the last error (or 200) response one connection encoded, kept as bytes with
 * the header names and values it was encoded from. A client refused again and again gets the same head every
 * time (a rate-limit flood: same status, page, Retry-After and RateLimit fields, and the same Date within a
 * second); comparing the headers with the last ones costs less than encoding them again, and the head is then one
 * copy. The encoder keeps one for whole error responses and one for whole 200s (a client polling one file, a
 * load test, a proxied app's identical answers): that is where a connection repeats itself at a high rate; a
 * connection that gets neither holds nothing.
 *
 * <p>Equality is exact (the same characters in the same order), so reused bytes are the bytes encoding would give.
 * Used on the connection's event loop only.
 */
final class RepeatedHead {
    private static final int MAX_HEADERS = 24;
    private static final int MAX_BYTES = 1024;

    private HttpVersion version;
    private int code;
    private String reason;
    private CharSequence[] names;
    private CharSequence[] values;
    private int count = -1;
    private byte[] bytes;
    private int length;

    /** Whether this response's status line and headers are the ones kept, character for character. */
    boolean matches(HttpResponse response) {
        if (count < 0 || !response.protocolVersion().equals(version)) {
            return false;
        }
        HttpResponseStatus status = response.status();
        if (status.code() != code || !status.reasonPhrase().equals(reason)) {
            return false;
        }
        HttpHeaders headers = response.headers();
        if (headers instanceof FieldList fields) {
            // by position: the responses Portico builds and the proxied ones it decodes, with no iterator to make
            if (fields.size() != count) {
                return false;
            }
            for (int i = 0; i < count; i++) {
                if (!same(names[i], fields.name(i)) || !same(values[i], fields.value(i))) {
                    return false;
                }
            }
            return true;
        }
        int i = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); i++) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            if (i == count || !same(names[i], e.getKey()) || !same(values[i], e.getValue())) {
                return false;
            }
        }
        return i == count;
    }

    private static boolean same(CharSequence kept, CharSequence now) {
        return kept == now || AsciiString.contentEquals(kept, now);
    }

    /**
     * Keeps the response's head, encoded in {@code encoded} from {@code from} (the status line) to {@code to} (after
     * the empty line). Heads too long or with too many headers to be worth keeping forget the one kept before.
     */
    void remember(HttpResponse response, ByteBuf encoded, int from, int to) {
        HttpHeaders headers = response.headers();
        int size = headers.size();
        int n = to - from;
        count = -1;
        if (size > MAX_HEADERS || n > MAX_BYTES) {
            return;
        }
        if (names == null) {
            names = new CharSequence[MAX_HEADERS];
            values = new CharSequence[MAX_HEADERS];
        }
        int i = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); i++) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            names[i] = e.getKey();
            values[i] = e.getValue();
        }
        for (int j = i; j < MAX_HEADERS && names[j] != null; j++) {
            names[j] = null; // no reference kept to an older response's values
            values[j] = null;
        }
        if (bytes == null || bytes.length < n) {
            bytes = new byte[Math.max(n, 256)];
        }
        encoded.getBytes(from, bytes, 0, n);
        length = n;
        version = response.protocolVersion();
        code = response.status().code();
        reason = response.status().reasonPhrase();
        count = i;
    }

    int length() {
        return length;
    }

    void writeTo(ByteBuf buf) {
        buf.writeBytes(bytes, 0, length);
    }
}
