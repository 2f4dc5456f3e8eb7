package io.portico.cache;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.DateFormatter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.portico.exchange.ClientExchange;
import io.portico.proxy.ProxyResponder;
import java.util.Date;
import java.util.List;

/**
 * Answers a client from a stored response: its head copied, Age and X-Cache set, rewritten as the location's
 * relayed responses are (Via, set-response-headers); the body for a GET, none for a HEAD; a 304 when the request's
 * If-None-Match or If-Modified-Since says the client has it (RFC 9110 13.2.2: If-None-Match wins).
 */
final class CachedAnswer {
    /** The fields a 304 keeps (RFC 9110 15.4.5), plus ours. */
    private static final List<CharSequence> NOT_MODIFIED_KEEPS = List.of(HttpHeaderNames.CACHE_CONTROL,
            HttpHeaderNames.CONTENT_LOCATION, HttpHeaderNames.DATE, HttpHeaderNames.ETAG, HttpHeaderNames.EXPIRES,
            HttpHeaderNames.VARY, HttpHeaderNames.LAST_MODIFIED);

    static final String X_CACHE = "X-Cache";

    private CachedAnswer() {}

    static void write(ClientExchange client, HttpRequest request, CachedResponse entry, String label,
            ProxyResponder proxy, long nowNanos) {
        boolean notModified = entry.status() == 200 && notModified(request.headers(), entry.headers());
        HttpHeaders h;
        HttpResponseStatus status;
        if (notModified) {
            status = HttpResponseStatus.NOT_MODIFIED;
            h = new DefaultHttpHeaders();
            for (CharSequence name : NOT_MODIFIED_KEEPS) {
                List<String> values = entry.headers().getAll(name);
                if (!values.isEmpty()) {
                    h.set(name, values);
                }
            }
        } else {
            status = HttpResponseStatus.valueOf(entry.status());
            h = new DefaultHttpHeaders().add(entry.headers());
            h.remove(HttpHeaderNames.TRANSFER_ENCODING);
            h.setInt(HttpHeaderNames.CONTENT_LENGTH, entry.body().length);
        }
        h.set(HttpHeaderNames.AGE, entry.ageSeconds(nowNanos));
        h.set(X_CACHE, label);
        boolean body = !notModified && !request.method().equals(HttpMethod.HEAD) && entry.body().length > 0;
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                body ? Unpooled.wrappedBuffer(entry.body()) : Unpooled.EMPTY_BUFFER, h, EmptyHttpHeaders.INSTANCE);
        proxy.rewrite(response, request, client);
        Channel ch = client.channel();
        ch.writeAndFlush(response, ch.voidPromise());
    }

    static boolean notModified(HttpHeaders request, HttpHeaders stored) {
        String inm = request.get(HttpHeaderNames.IF_NONE_MATCH);
        if (inm != null) {
            String etag = stored.get(HttpHeaderNames.ETAG);
            if (etag == null) {
                return false;
            }
            String mine = weakless(etag);
            for (String t : inm.split(",")) {
                String tag = t.strip();
                if (tag.equals("*") || weakless(tag).equals(mine)) {
                    return true;
                }
            }
            return false;
        }
        String ims = request.get(HttpHeaderNames.IF_MODIFIED_SINCE);
        String lm = stored.get(HttpHeaderNames.LAST_MODIFIED);
        if (ims == null || lm == null) {
            return false;
        }
        Date since = DateFormatter.parseHttpDate(ims);
        Date modified = DateFormatter.parseHttpDate(lm);
        return since != null && modified != null && !modified.after(since);
    }

    /** The weak comparison of RFC 9110 8.8.3.2: W/ does not matter for If-None-Match. */
    private static String weakless(String tag) {
        return tag.startsWith("W/") ? tag.substring(2) : tag;
    }
}
