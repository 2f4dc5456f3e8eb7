package io.portico.ratelimit;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.connection.ReadGate;
import io.portico.exchange.ClientExchange;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Applies a location's rate-limit and limit-conn zones to each request of one client channel: forwards it,
 * holds it (head and body) on the event loop's timer while it is delayed, or answers the zone's status and
 * drains its body. A location with a shared zone holds the request the same way while the zone's store decides.
 * The end of an exchange (its response ended, {@link ExchangeEvents}, or the channel closing) gives back its limit-conn
 * slots. One instance per channel; every method runs on the channel's event loop.
 */
final class RateLimitHandler extends ChannelDuplexHandler implements ExchangeObserver {
    private static final SlotMemo[] NO_MEMOS = {};
    private static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");

    /** The zones of a request's own configuration: a reload gives the next requests of this channel new ones. */
    private final Function<ClientExchange, RateLimits> limitsOfRequest;
    /** The zones of the current request, and the clock they run on. */
    private RateLimits limits;
    private NanoClock clock;

    /** The request waiting for its delay or its shared zone's verdict; null when none is. */
    private Held held;
    private ScheduledFuture<?> timer;
    /** The body of a rejected request is dropped up to its LastHttpContent. */
    private boolean draining;
    private final List<LocationLimits.Lease> leases = new ArrayList<>(1);
    /** RateLimit fields for the response of the request in progress ({@code headers = always}); usually null. */
    private HttpHeaders passHeaders;
    /** Where this connection's last client of each zone of {@link #limits} keeps its state, by zone index. */
    private SlotMemo[] memos = NO_MEMOS;

    RateLimitHandler(Function<ClientExchange, RateLimits> limitsOfRequest) {
        this.limitsOfRequest = limitsOfRequest;
    }

    /** The request's zones; the memos start afresh when they are another configuration's (after a reload). */
    private RateLimits limitsOf(ClientExchange client) {
        RateLimits l = limitsOfRequest.apply(client);
        if (l != limits) {
            limits = l;
            clock = l.clock();
            memos = l.rateZoneCount() == 0 ? NO_MEMOS : new SlotMemo[l.rateZoneCount()];
        }
        return l;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (held != null) {
            held.messages.add(msg);
        } else if (msg instanceof HttpRequest request) {
            draining = false;
            onRequest(ctx, request);
        } else if (draining) {
            draining = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private void onRequest(ChannelHandlerContext ctx, HttpRequest request) {
        ClientExchange client = ctx.channel().attr(ClientExchange.KEY).get();
        LocationLimits location = client == null || client.route() == null ? null
                : limitsOf(client).forLocation(client.route().location());
        if (location == null || location.limitsNothing() || location.unlimited(client)) {
            ctx.fireChannelRead(request);
            return;
        }
        if (!client.fromTrustedProxy() && location.watchesForwarders()
                && request.headers().contains(X_FORWARDED_FOR)) {
            // rare in a correct configuration: the only requests the load-balancer detector counts
            location.untrustedForwarder(client.peerAddress().getAddress(), clock.nanoTime());
        }
        if (location.decidesLater()) {
            awaitVerdict(ctx, client, location, request);
            return;
        }
        decide(ctx, client, location, request, location.checkRate(client, request, clock.nanoTime(), memos));
    }

    private void decide(ChannelHandlerContext ctx, ClientExchange client, LocationLimits location,
            HttpRequest request, RateVerdict verdict) {
        if (verdict.note() != null) {
            client.log().note(verdict.note());
        }
        passHeaders = verdict.passHeaders();
        if (verdict.rejected()) {
            RateZone zone = verdict.rejectedBy();
            reject(client, request, zone.status, zone.rejectionHeaders(verdict.retryNanos()));
        } else if (verdict.delayNanos() > 0) {
            hold(ctx, client, location, request, verdict.delayNanos());
        } else {
            admit(ctx, client, location, request);
        }
    }

    private void admit(ChannelHandlerContext ctx, ClientExchange client, LocationLimits location, HttpRequest request) {
        if (location.limitsConnections()) {
            if (location.sharesConnections()) {
                awaitConnections(ctx, client, location, request);
                return;
            }
            ConnZone full = location.acquireConnections(client, request, leases);
            if (full != null) {
                refuseConnection(client, request, full);
                return;
            }
        }
        ctx.fireChannelRead(request);
    }

    private void refuseConnection(ClientExchange client, HttpRequest request, ConnZone full) {
        String note = client.log().note();
        client.log().note("-".equals(note) ? full.noteRejected : note + ' ' + full.noteRejected);
        reject(client, request, full.status, null);
    }

    /**
     * A location with a shared limit-conn zone: the request waits, reads paused, while Redis counts; the slots come
     * back to this channel's loop (they are read there). Slots that arrive after the channel closed are given back
     * at once.
     */
    private void awaitConnections(ChannelHandlerContext ctx, ClientExchange client, LocationLimits location,
            HttpRequest request) {
        Held waiting = park(ctx, client, location, request);
        location.acquireConnectionsLater(client, request).whenComplete((acquired, failure) -> {
            if (ctx.executor().inEventLoop()) {
                connectionsArrived(ctx, waiting, acquired, failure); // read by this loop's own connection
                return;
            }
            try {
                ctx.executor().execute(() -> connectionsArrived(ctx, waiting, acquired, failure));
            } catch (RejectedExecutionException e) {
                if (acquired != null) {
                    acquired.leases().forEach(LocationLimits.Lease::release); // the loop is gone
                }
            }
        });
    }

    private void connectionsArrived(ChannelHandlerContext ctx, Held waiting, LocationLimits.Acquired acquired,
            Throwable failure) {
        if (held != waiting) {
            if (acquired != null) {
                acquired.leases().forEach(LocationLimits.Lease::release); // the channel closed meanwhile
            }
            return;
        }
        held = null;
        HttpRequest request = (HttpRequest) waiting.messages.poll();
        if (failure != null) {
            ReferenceCountUtil.release(request);
            waiting.messages.forEach(ReferenceCountUtil::release);
            ctx.fireExceptionCaught(failure);
            return;
        }
        if (acquired.full() != null) {
            refuseConnection(waiting.client, request, acquired.full());
        } else {
            leases.addAll(acquired.leases());
            ctx.fireChannelRead(request);
        }
        resume(ctx, waiting.messages);
    }

    private void reject(ClientExchange client, HttpRequest request, HttpResponseStatus status, HttpHeaders headers) {
        passHeaders = null;
        // what arrives later of its body the exchange's owner releases (ClientExchange.refuse); what this stage
        // holds already (a delayed or shared-zone request's parts) it drops itself
        draining = !(request instanceof LastHttpContent);
        client.refuse(status, headers, false);
        ReferenceCountUtil.release(request);
    }

    private void hold(ChannelHandlerContext ctx, ClientExchange client, LocationLimits location, HttpRequest request,
            long delayNanos) {
        Held delayed = park(ctx, client, location, request);
        timer = ctx.executor().schedule(() -> {
            timer = null;
            held = null;
            admit(ctx, client, location, (HttpRequest) delayed.messages.poll());
            resume(ctx, delayed.messages);
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * A location with a shared (Redis) zone: the request and its body wait here, reads paused, until the store has
     * answered. The answer is read by this channel's loop on its own connection to the store, and decided at once;
     * from another thread (a store without the server's loops, a late command timeout) it hops back to the loop.
     */
    private void awaitVerdict(ChannelHandlerContext ctx, ClientExchange client, LocationLimits location,
            HttpRequest request) {
        Held waiting = park(ctx, client, location, request);
        location.checkLater(client, request, clock).whenComplete((verdict, failure) -> {
            if (ctx.executor().inEventLoop()) {
                // the reply was read by this loop's own connection to the store (or the deadline fired here):
                // answered now, with no task queued
                verdictArrived(ctx, waiting, verdict, failure);
                return;
            }
            try {
                ctx.executor().execute(() -> verdictArrived(ctx, waiting, verdict, failure));
            } catch (RejectedExecutionException e) {
                // the loop is shutting down; closing the channel releases what it held
            }
        });
    }

    private void verdictArrived(ChannelHandlerContext ctx, Held waiting, RateVerdict verdict, Throwable failure) {
        if (held != waiting) {
            return; // the channel closed meanwhile, and released what it held
        }
        held = null;
        HttpRequest request = (HttpRequest) waiting.messages.poll();
        if (failure != null) {
            ReferenceCountUtil.release(request);
            waiting.messages.forEach(ReferenceCountUtil::release);
            ctx.fireExceptionCaught(failure);
            return;
        }
        decide(ctx, waiting.client, waiting.location, request, verdict);
        resume(ctx, waiting.messages);
    }

    /** A held request, the body parts that arrived behind it, and what it was being decided for. */
    private record Held(ArrayDeque<Object> messages, ClientExchange client, LocationLimits location) {}

    /** Holds {@code request}, and what arrives after it, with reads paused (the body waits in the socket). */
    private Held park(ChannelHandlerContext ctx, ClientExchange client, LocationLimits location,
            HttpRequest request) {
        held = new Held(new ArrayDeque<>(4), client, location);
        held.messages.add(request);
        ReadGate.of(ctx.channel()).hold(ReadGate.Reason.RATE_LIMIT);
        return held;
    }

    /** After the held request went on: what arrived behind it, then this stage's hold on reads goes (unless held again). */
    private void resume(ChannelHandlerContext ctx, ArrayDeque<Object> messages) {
        for (Object msg = messages.poll(); msg != null; msg = messages.poll()) {
            channelRead(ctx, msg);
        }
        if (held == null) {
            ReadGate.of(ctx.channel()).release(ReadGate.Reason.RATE_LIMIT);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (passHeaders != null && msg instanceof HttpResponse response && !informational(msg)) {
            response.headers().add(passHeaders);
            passHeaders = null;
        }
        ctx.write(msg, promise);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        ExchangeEvents.of(ctx.channel()).observe(this);
    }

    @Override
    public void responseEnded(ChannelFuture written, boolean keepAlive) {
        endExchange();
    }

    /** A {@code 100 Continue} is a full response that does not end the exchange. */
    private static boolean informational(Object msg) {
        return msg instanceof HttpResponse response && response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        dropHeld();
        endExchange();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        dropHeld();
        endExchange();
    }

    private void dropHeld() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
        if (held != null) {
            for (Object msg : held.messages) {
                ReferenceCountUtil.release(msg);
            }
            held = null;
        }
        draining = false;
    }

    private void endExchange() {
        passHeaders = null;
        for (int i = leases.size() - 1; i >= 0; i--) {
            leases.remove(i).release();
        }
    }
}
