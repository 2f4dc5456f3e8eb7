package io.portico.cache;

import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import java.util.concurrent.TimeUnit;

/**
 * A request waiting for another's response on the same key (a {@link Fill} waiter): a timer and a callback, no
 * thread. Answered from the stored entry when the fill stores one (HIT, or STALE when the fill served a stale
 * copy); otherwise, or once {@code lock-timeout} has passed, it goes upstream itself, as nginx's waiters do.
 */
final class Waiting implements Exchange, Fill.Waiter {
    private final CachingResponder cache;
    private final ClientExchange client;
    private final HttpRequest request;
    private final String base;
    private final String key;
    private final Fill fill;
    private ScheduledFuture<?> timer;
    private Exchange upstream;
    private boolean over; // answered, gone upstream or client gone: on the client's loop only
    /** The client shut its sending side while waiting: a stored answer still goes to it, an upstream is told. */
    private boolean clientInputShut;

    Waiting(CachingResponder cache, ClientExchange client, HttpRequest request, String base, String key, Fill fill) {
        this.cache = cache;
        this.client = client;
        this.request = request;
        this.base = base;
        this.key = key;
        this.fill = fill;
    }

    /** Arms the lock timeout; called once the waiter has joined. */
    void arm() {
        timer = client.channel().eventLoop().schedule(() -> {
            if (!over && fill.leave(this)) {
                goUpstream();
            }
        }, cache.config().lockTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void done(CachedResponse entry, boolean stale) {
        client.channel().eventLoop().execute(() -> {
            if (over) {
                return;
            }
            if (timer != null) {
                timer.cancel(false);
            }
            if (entry == null || !entry.matches(request.headers())) { // none, or another variant than ours
                goUpstream();
                return;
            }
            over = true;
            (stale ? cache.zone().stale : cache.zone().hits).increment();
            CachedAnswer.write(client, request, entry, stale ? "STALE" : "HIT", cache.proxy(), cache.nanoTime());
        });
    }

    private void goUpstream() {
        over = true;
        cache.zone().misses.increment();
        upstream = cache.proxy().open(client, CachingResponder.fillRequest(request),
                new FillTap(cache, client, request, base, key, null, null, true, "MISS", false));
        if (clientInputShut) {
            upstream.onClientInputShutdown();
        }
    }

    @Override
    public void onContent(HttpContent content) {
        if (upstream != null) {
            upstream.onContent(content);
        } else {
            content.release(); // a cached request has no body: this is its (empty) end
        }
    }

    @Override
    public void onClientInputShutdown() {
        if (upstream != null) {
            upstream.onClientInputShutdown();
        } else {
            clientInputShut = true;
        }
    }

    @Override
    public void onClientClosed() {
        if (timer != null) {
            timer.cancel(false);
        }
        if (upstream != null) {
            upstream.onClientClosed();
        } else if (!over) {
            over = true;
            fill.leave(this);
        }
    }
}
