package io.portico.compress;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.util.AsciiString;
import io.portico.config.CompressionConfig;
import io.portico.config.CompressionConfig.Coding;
import java.util.Locale;

/**
 * Which responses are compressed, as nginx's gzip module and Caddy's encode decide it: a listed type whose body
 * is not already encoded, not a range, not 204/304, not shorter than {@code min-length} when its length is known,
 * not {@code Cache-Control: no-transform}, for a client that accepts a coding that loads here. Every response of
 * a listed type says {@code Vary: Accept-Encoding}, compressed or not, so a cache keeps the variants apart.
 */
final class CompressionPolicy {
    private static final AsciiString ACCEPT_ENCODING = AsciiString.cached("Accept-Encoding");

    private CompressionPolicy() {}

    /** The coding, or null; adds Vary to a compressible response either way. {@code length} -1 when unknown. */
    static Coding choose(CompressionConfig config, RequestFacts request, HttpResponse response, long length) {
        int status = response.status().code();
        HttpHeaders h = response.headers();
        if (status == 204 || status == 304 || status == 206 || !config.compressible(h.get(HttpHeaderNames.CONTENT_TYPE))) {
            return null;
        }
        addVary(h);
        if (request.range() || request.http10() || h.contains(HttpHeaderNames.CONTENT_RANGE)) {
            return null;
        }
        String encoding = h.get(HttpHeaderNames.CONTENT_ENCODING);
        if (encoding != null && !encoding.trim().equalsIgnoreCase("identity")) {
            return null; // already encoded: a precompressed file, an upstream that compressed
        }
        if (length >= 0 && length < config.minLength()) {
            return null;
        }
        String cacheControl = h.get(HttpHeaderNames.CACHE_CONTROL);
        if (cacheControl != null && cacheControl.toLowerCase(Locale.ROOT).contains("no-transform")) {
            return null;
        }
        String accept = request.acceptEncoding();
        if (accept == null || accept.isEmpty()) {
            return null; // nothing accepted: no offer to look at
        }
        return AcceptEncoding.choose(accept, ResponseCompression.offered(config));
    }

    /**
     * The head of a compressed variant: Content-Encoding, no Content-Length (unknown until compressed), no
     * Accept-Ranges (ranges are of the identity body), and a weak ETag, as nginx makes it: the variant is not
     * byte-identical to the identity body, yet If-None-Match still matches it weakly.
     */
    static void rewriteHead(HttpHeaders h, Coding coding) {
        h.remove(HttpHeaderNames.CONTENT_ENCODING);
        h.set(HttpHeaderNames.CONTENT_ENCODING, coding.token);
        h.remove(HttpHeaderNames.CONTENT_LENGTH);
        h.remove(HttpHeaderNames.ACCEPT_RANGES);
        String etag = h.get(HttpHeaderNames.ETAG);
        if (etag != null && etag.startsWith("\"")) {
            h.set(HttpHeaderNames.ETAG, "W/" + etag);
        }
    }

    private static void addVary(HttpHeaders h) {
        for (String vary : h.getAll(HttpHeaderNames.VARY)) {
            for (String name : vary.split(",")) {
                String n = name.trim();
                if (n.equals("*") || n.equalsIgnoreCase("accept-encoding")) {
                    return;
                }
            }
        }
        h.add(HttpHeaderNames.VARY, ACCEPT_ENCODING);
    }
}
