package io.portico.cache;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.portico.config.CacheConfig;
import io.portico.config.TextTemplate;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.exchange.Responder;
import io.portico.exchange.Variables;
import io.portico.proxy.ProxyResponder;
import java.util.function.LongSupplier;

/**
 * A proxy location behind its response cache. Per request: not a cacheable request, the plain proxy; bypassed
 * (or with Authorization), the proxy labelled BYPASS; a fresh entry, a HIT from memory; a stale one with {@code
 * use-stale = [updating]}, the stale copy (STALE for the request that starts the one background refresh, UPDATING
 * while it runs); otherwise a MISS, which the first request takes upstream and the concurrent ones wait for
 * ({@link Fill}). Shared by every event loop; per-request state lives in the exchanges it opens.
 */
final class CachingResponder implements Responder {
    private final CacheConfig config;
    private final CacheZone zone;
    private final ProxyResponder proxy;
    private final LongSupplier nanoTime;
    /** use-stale's http_NNN conditions by status (100..599), read from the set once rather than per response. */
    private final boolean[] staleOnStatus = new boolean[600];

    CachingResponder(CacheConfig config, CacheZone zone, ProxyResponder proxy, LongSupplier nanoTime) {
        this.config = config;
        for (int status = 100; status < staleOnStatus.length; status++) {
            staleOnStatus[status] = config.useStale().contains("http_" + status);
        }
        this.zone = zone;
        this.proxy = proxy;
        this.nanoTime = nanoTime;
    }

    CacheConfig config() {
        return config;
    }

    /** Whether use-stale answers an upstream {@code status} with a stale copy ({@code http_NNN}). */
    boolean staleOn(int status) {
        return status >= 0 && status < staleOnStatus.length && staleOnStatus[status];
    }

    CacheZone zone() {
        return zone;
    }

    ProxyResponder proxy() {
        return proxy;
    }

    long nanoTime() {
        return nanoTime.getAsLong();
    }

    @Override
    public Exchange open(ClientExchange client, HttpRequest request) {
        if (!CachePolicy.cacheableRequest(config, request)) {
            return proxy.open(client, request);
        }
        String base = Variables.expand(config.key(), client, request);
        if (bypassed(client, request)) {
            zone.bypass.increment();
            // Authorization: the answer may still be stored when it says public (CachePolicy); a bypass stores
            // nothing (nginx's proxy_cache_bypass together with proxy_no_cache, as it is almost always set).
            boolean store = request.headers().contains(HttpHeaderNames.AUTHORIZATION) && !bypassValue(client, request);
            return proxy.open(client, fillRequest(request),
                    new FillTap(this, client, request, base, base, null, null, store, "BYPASS", false));
        }
        Stored stored = zone.stored(base);
        String key = base;
        CachedResponse entry;
        if (stored instanceof VaryNames vary) {
            key = base + CacheZone.variant(vary.names(), request.headers());
            entry = zone.response(key);
        } else {
            entry = stored instanceof CachedResponse r ? r : null;
        }
        long now = nanoTime();
        if (entry != null && entry.fresh(now)) {
            zone.hits.increment();
            CachedAnswer.write(client, request, entry, "HIT", proxy, now);
            return Exchange.DISCARD_BODY;
        }
        if (entry != null && config.useStale().contains("updating")) {
            if (zone.startRefresh(key)) {
                zone.stale.increment();
                refresh(client, request, base, key, entry);
                CachedAnswer.write(client, request, entry, "STALE", proxy, now);
            } else {
                zone.updating.increment();
                CachedAnswer.write(client, request, entry, "UPDATING", proxy, now);
            }
            return Exchange.DISCARD_BODY;
        }
        boolean head = request.method().equals(HttpMethod.HEAD);
        Fill fill = null;
        if (!config.lockTimeout().isZero()) {
            Fill mine = new Fill(zone, key);
            Fill current = zone.fillOrLead(key, mine);
            if (current == mine && head) { // a HEAD does not lead: its answer has no body to store
                zone.fillDone(key, mine);
            } else if (current == mine) {
                fill = mine;
            } else {
                Waiting w = new Waiting(this, client, request, base, key, current);
                if (current.join(w)) {
                    zone.coalesced.increment();
                    w.arm();
                    return w;
                }
            }
        }
        zone.misses.increment();
        // A HEAD miss goes upstream as HEAD and stores nothing; a GET fills the entry.
        return proxy.open(client, head ? request : fillRequest(request),
                new FillTap(this, client, request, base, key, entry, fill, !head, "MISS", false));
    }

    /** One background refresh of a stale entry: a GET upstream that no client waits on. */
    private void refresh(ClientExchange client, HttpRequest request, String base, String key, CachedResponse stale) {
        HttpRequest get = fillRequest(request);
        get.setMethod(HttpMethod.GET);
        proxy.open(new DetachedClient(client), get,
                new FillTap(this, client, get, base, key, stale, null, true, "MISS", true));
    }

    /** Whether the request skips the cache: Authorization, or a bypass value that is set and not "0". */
    private boolean bypassed(ClientExchange client, HttpRequest request) {
        return request.headers().contains(HttpHeaderNames.AUTHORIZATION) || bypassValue(client, request);
    }

    private boolean bypassValue(ClientExchange client, HttpRequest request) {
        for (TextTemplate t : config.bypass()) {
            String v = Variables.expand(t, client, request);
            if (!v.isEmpty() && !v.equals("0")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The request as sent upstream to fill an entry: without the client's validators, so that the upstream sends
     * the whole response for the cache rather than a 304 only this client could use (as nginx does).
     */
    static HttpRequest fillRequest(HttpRequest request) {
        HttpHeaders h = new DefaultHttpHeaders().add(request.headers());
        h.remove(HttpHeaderNames.IF_NONE_MATCH);
        h.remove(HttpHeaderNames.IF_MODIFIED_SINCE);
        h.remove(HttpHeaderNames.IF_MATCH);
        h.remove(HttpHeaderNames.IF_UNMODIFIED_SINCE);
        h.remove(HttpHeaderNames.IF_RANGE);
        return new DefaultFullHttpRequest(request.protocolVersion(), request.method(), request.uri(),
                Unpooled.EMPTY_BUFFER, h, EmptyHttpHeaders.INSTANCE);
    }
}
