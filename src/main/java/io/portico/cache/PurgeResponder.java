package io.portico.cache;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * The purge of the status location: {@code PURGE /status?key=KEY} removes an entry (and its Vary variants), {@code
 * PURGE /status?prefix=PREFIX} every entry whose key starts with it; {@code &zone=NAME} limits it to one zone, else
 * every zone. The key is the expanded {@code cache.key} ({@code httpexample.com/page} for the default). Answers
 * 200 with {@code {"purged":N}}, 400 without key or prefix, 404 for an unknown zone. The status location's allow
 * list (loopback unless set) applies before this. Any other method goes to the status page.
 */
final class PurgeResponder implements Responder {
    static final HttpMethod PURGE = HttpMethod.valueOf("PURGE");

    private final Map<String, CacheZone> zones;
    private final Responder status;

    PurgeResponder(Map<String, CacheZone> zones, Responder status) {
        this.zones = zones;
        this.status = status;
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        if (!request.method().equals(PURGE)) {
            return status.open(client, request);
        }
        Map<String, List<String>> q = new QueryStringDecoder(request.uri()).parameters();
        String key = last(q.get("key"));
        String prefix = last(q.get("prefix"));
        String zone = last(q.get("zone"));
        if ((key == null) == (prefix == null)) {
            answer(client, HttpResponseStatus.BAD_REQUEST, "{\"error\":\"expected one of key= or prefix=\"}");
            return Exchange.DISCARD_BODY;
        }
        if (zone != null && !zones.containsKey(zone)) {
            answer(client, HttpResponseStatus.NOT_FOUND, "{\"error\":\"no such cache zone\"}");
            return Exchange.DISCARD_BODY;
        }
        int purged = 0;
        for (CacheZone z : zones.values()) {
            if (zone == null || z.name.equals(zone)) {
                purged += key != null ? z.purge(key) : z.purgePrefix(prefix);
            }
        }
        answer(client, HttpResponseStatus.OK, "{\"purged\":" + purged + "}");
        return Exchange.DISCARD_BODY;
    }

    private static String last(List<String> values) {
        return values == null || values.isEmpty() ? null : values.get(values.size() - 1);
    }

    private static void answer(ClientExchange client, HttpResponseStatus status, String json) {
        byte[] body = (json + "\n").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json")
                .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        Channel ch = client.channel();
        ch.writeAndFlush(r, ch.voidPromise());
    }
}
