package io.portico.cache;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.portico.exchange.ClientExchange;
import io.portico.proxy.ResponseTap;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Watches one upstream response for the cache: labels it for the client (X-Cache), copies its body while it may
 * be stored (up to {@code max-object-size}; beyond, the copy is dropped and the body only streams on), stores it
 * at its end and tells the {@link Fill}'s waiters. With a stale copy at hand and {@code use-stale} allowing it, an
 * upstream error, timeout or listed 5xx/4xx is answered with the stale copy instead. Event loop only.
 */
final class FillTap implements ResponseTap {
    private final CachingResponder cache;
    private final ClientExchange client;
    private final HttpRequest request;
    private final String base;
    private final String key;
    private final CachedResponse stale;
    private final Fill fill;
    private final boolean store;
    private final String label;
    private final boolean detached;
    private int status;
    private HttpHeaders head;
    private Duration lifetime;
    private byte[] body;
    private int length;
    private boolean ended;

    /**
     * @param stale the stale entry of the key, may be null
     * @param fill the fill this request leads, may be null
     * @param store whether a storable response is stored
     * @param detached a background refresh: no client waits
     */
    FillTap(CachingResponder cache, ClientExchange client, HttpRequest request, String base, String key,
            CachedResponse stale, Fill fill, boolean store, String label, boolean detached) {
        this.cache = cache;
        this.client = client;
        this.request = request;
        this.base = base;
        this.key = key;
        this.stale = stale;
        this.fill = fill;
        this.store = store;
        this.label = label;
        this.detached = detached;
    }

    @Override
    public boolean detached() {
        return detached;
    }

    /** A fill that may store: before the head, one that may store it; after, one still copying a storable body. */
    @Override
    public boolean storing() {
        return store && !ended && (status == 0 || body != null);
    }

    @Override
    public boolean head(HttpResponse response) {
        status = response.status().code();
        if (stale != null && cache.staleOn(status)) {
            ended = true;
            answerStale();
            return false;
        }
        Optional<Duration> life = store ? CachePolicy.lifetime(cache.config(), request, response) : Optional.empty();
        long declared = HttpUtil.getContentLength(response, -1L);
        if (life.isPresent() && declared <= cache.config().maxObjectSize()) {
            lifetime = life.get();
            head = new DefaultHttpHeaders().add(response.headers());
            body = new byte[declared >= 0 ? (int) declared : 1024];
        } else {
            release(null, false); // not storable: the waiters need not wait for its end
        }
        if (!detached) {
            response.headers().set(CachedAnswer.X_CACHE, label);
        }
        return !detached;
    }

    @Override
    public void content(ByteBuf content) {
        if (body == null) {
            return;
        }
        int n = content.readableBytes();
        if ((long) length + n > cache.config().maxObjectSize()) {
            body = null; // too big: streamed to the client, not kept
            release(null, false);
            return;
        }
        if (length + n > body.length) {
            body = Arrays.copyOf(body, (int) Math.min(cache.config().maxObjectSize(),
                    Math.max((long) body.length * 2, (long) length + n)));
        }
        content.getBytes(content.readerIndex(), body, length, n);
        length += n;
    }

    @Override
    public void end() {
        ended = true;
        if (body == null) {
            release(null, false);
            return;
        }
        long now = cache.nanoTime();
        byte[] whole = length == body.length ? body : Arrays.copyOf(body, length);
        long initialAge = cache.config().honorCacheControl() ? CachePolicy.upstreamAge(head) : 0;
        List<String> vary = CachePolicy.varyNames(head);
        CachedResponse entry = new CachedResponse(status, stripFraming(head), whole, now,
                now + lifetime.toNanos(), initialAge, CacheZone.variant(vary, request.headers()));
        cache.zone().store(base, vary, request.headers(), entry);
        body = null;
        release(entry, false);
    }

    @Override
    public boolean failed(boolean timeout) {
        if (stale != null && cache.config().useStale().contains(timeout ? "timeout" : "error")) {
            ended = true;
            answerStale();
            return true;
        }
        release(null, false);
        return detached; // a refresh has no client to tell
    }

    @Override
    public void finished() {
        if (!ended) {
            ended = true;
            body = null;
            release(null, false);
        }
        if (detached) {
            cache.zone().refreshDone(key);
        }
    }

    private void answerStale() {
        body = null;
        if (!detached) {
            cache.zone().stale.increment();
            CachedAnswer.write(client, request, stale, "STALE", cache.proxy(), cache.nanoTime());
        }
        release(stale, true);
    }

    private void release(CachedResponse entry, boolean isStale) {
        if (fill != null) {
            fill.complete(entry, isStale);
        }
    }

    /** The stored head says nothing of framing: answers set Content-Length from the stored body. */
    private static HttpHeaders stripFraming(HttpHeaders h) {
        h.remove(HttpHeaderNames.TRANSFER_ENCODING);
        h.remove(HttpHeaderNames.CONTENT_LENGTH);
        return h;
    }
}
