package io.portico.proxy;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.Exchange;
import io.portico.upstream.Selection;
import io.portico.upstream.UpstreamConnection;
import io.portico.upstream.UpstreamServer;
import java.util.ArrayList;
import java.util.List;

/**
 * One client request proxied to an upstream, on the client's event loop: it runs the attempts (pick a server, take
 * a permit, take a pooled or new connection, send, arm the timers) and ends the exchange. The request side is a
 * {@link RequestForwarder}, the response side a {@link ResponseRelay}; a failure before the response head is an
 * {@link UpstreamFailure}, which {@link Failover} turns into another attempt or the failure's status. After the head
 * reached the client, any failure closes the client connection, since the response can no longer be fixed.
 */
final class ProxyExchange implements Exchange, UpstreamConnection.Listener, Attempt.Owner {
    private final ProxySettings settings;
    private final ClientExchange client;
    private final EventLoop loop;
    private final String hashKey;
    /** The server of the latest attempt (null before the first). */
    private UpstreamServer lastTried;
    /** Every server tried, which the balancer skips: made only when a retry needs it (most requests try one). */
    private List<UpstreamServer> tried;
    private final long readTimeoutNanos;
    private final long sendTimeoutNanos;
    private final boolean idempotent;
    /** Made on the first failure, like {@link #tried}: most exchanges never fail and need no retry decisions. */
    private Failover failover;
    private final RequestForwarder request;
    private final ResponseRelay response;
    private final ResponseTap tap;
    private Attempt current;
    private UpstreamFailure lastFailure;
    private boolean finished;

    ProxyExchange(ProxySettings settings, ClientExchange client, HttpRequest request, ResponseTap tap) {
        this.settings = settings;
        this.tap = tap;
        this.client = client;
        this.loop = client.channel().eventLoop();
        this.hashKey = settings.pool().hashKey().evaluate(request, client.path(), client.clientAddress());
        this.readTimeoutNanos = settings.pool().config().readTimeout().toNanos();
        this.sendTimeoutNanos = settings.pool().config().sendTimeout().toNanos();
        this.idempotent = Methods.idempotent(request.method());
        boolean websocket = HopByHop.isWebSocketUpgrade(request.headers());
        this.response = new ResponseRelay(this, settings, client, request, websocket, tap);
        this.request = new RequestForwarder(this, settings, client, request, websocket);
    }

    void start() {
        if (!request.bodyBuffered()) {
            attempt();
        }
    }

    @Override
    public void onContent(HttpContent content) {
        if (finished || response.upstreamDone()) {
            content.release();
            return;
        }
        request.onContent(content, current);
    }

    // ---- attempts

    /** A new try on the next server the balancer gives, or the last failure's status when there is none. */
    void attempt() {
        if (finished) {
            return;
        }
        UpstreamServer s = settings.pool().select(new Selection(hashKey, client.clientAddress().getAddress(),
                triedSoFar()));
        if (s == null) {
            if (lastFailure == null) {
                settings.pool().errorLog().warn(UpstreamFailure.NO_LIVE.detail());
                settings.pool().poolMeters().failed(UpstreamFailure.Kind.NO_LIVE_UPSTREAM.metricCause);
            }
            reject(lastFailure == null ? UpstreamFailure.NO_LIVE : lastFailure);
            return;
        }
        if (lastFailure != null) { // a retry on the next server (counted only when there is one to try)
            lastTried.meters().retried(lastFailure.kind().metricCause);
        }
        if (tried != null) {
            tried.add(s);
        }
        lastTried = s;
        if (failover != null) {
            failover.tried();
        }
        attemptOn(s, false);
    }

    private List<UpstreamServer> triedSoFar() {
        if (lastTried == null) {
            return List.of();
        }
        if (tried == null) {
            tried = new ArrayList<>(2);
            tried.add(lastTried);
        }
        return tried;
    }

    private void attemptOn(UpstreamServer s, boolean fresh) {
        Attempt a = new Attempt(s, loop, this, fresh);
        current = a;
        a.acquirePermit(settings.pool().connections(loop));
    }

    // Attempt.Owner: what an attempt tells its exchange, each only while the attempt has not ended.

    @Override
    public void permitted(Attempt a) {
        a.connect(settings.pool().connections(loop), this);
    }

    @Override
    public void permitRefused(Attempt a) {
        UpstreamFailure full = UpstreamFailure.queueFull(a.server);
        a.server.errorLog().warn(full.detail());
        a.server.meters().failed(full.kind().metricCause);
        reject(full);
    }

    @Override
    public void connected(Attempt a) {
        request.sendOn(a);
        response.startReading(a.channel());
    }

    @Override
    public void connectFailed(Attempt a, Throwable cause) {
        failed(a, UpstreamFailure.connect(a.server, cause));
    }

    @Override
    public void readTimedOut(Attempt a) {
        failed(a, UpstreamFailure.readTimeout(a.server));
    }

    @Override
    public void sendTimedOut(Attempt a) {
        failed(a, UpstreamFailure.sendTimeout(a.server));
    }

    /** The whole request is on its way: from now on the upstream must answer within {@code read-timeout}. */
    void requestWritten() {
        current.armReadTimer(readTimeoutNanos);
    }

    /** The upstream stopped taking request bytes: it must take some within {@code send-timeout}. */
    void upstreamBlocked() {
        current.watchSend(sendTimeoutNanos);
    }

    @Override
    public void onWritabilityChanged() {
        Channel up = current == null ? null : current.channel();
        if (up == null) {
            return;
        }
        if (!up.isWritable()) {
            upstreamBlocked();
            return;
        }
        current.sendProgressed();
        if (current.isRequestSent()) {
            request.upstreamWritable();
        }
    }

    @Override
    public void onMessage(HttpObject msg) {
        if (finished) {
            ReferenceCountUtil.release(msg);
            return;
        }
        current.readSomething();
        if (!current.readTimerArmed()) {
            requestWritten(); // the upstream answered before the whole request was sent
        }
        response.onMessage(current, msg);
    }

    @Override
    public void onClosed(Throwable cause) {
        if (!finished) {
            failed(current, UpstreamFailure.closed(current.server, cause));
        }
    }

    void upstreamBroken(String reason) {
        failed(current, UpstreamFailure.malformed(reason));
    }

    /**
     * Attempt {@code a} failed. After the response head went to the client: the server's fault, and the client
     * connection is closed. After the head arrived but before it went out: the server's fault, and the failure's
     * status. Before the head: {@link Failover} decides between the same server afresh (not the server's fault),
     * the next server and giving up with the failure's status; the two last count toward the server's
     * {@code max-fails}.
     */
    private void failed(Attempt a, UpstreamFailure failure) {
        logAttempt(a);
        a.server.meters().failed(failure.kind().metricCause);
        if (response.started()) {
            a.server.errorLog().warn(failure.detail() + " after the response head went to the client");
            a.server.failed();
            abortClient(failure.note());
            return;
        }
        a.server.errorLog().warn(failure.detail());
        if (response.dropHeldHead()) {
            // The upstream began to answer and broke off before any of it reached the client: the client gets a
            // whole 502/504 on a connection that stays usable. Not replayed: the app has acted on the request.
            a.server.failed();
            reject(failure);
            return;
        }
        lastFailure = failure;
        if (failover == null) {
            // The first failure comes after exactly one try: a fresh retry on the same server is not a new try.
            failover = new Failover(settings.retries(), idempotent);
            failover.tried();
        }
        Failover.Next next = failover.after(failure.kind(), a.isRequestSent(), a.reused(), request.replayable());
        a.end(false);
        if (next == Failover.Next.SAME_SERVER_FRESH) {
            a.server.meters().retried(failure.kind().metricCause);
            attemptOn(a.server, true);
            return;
        }
        a.server.failed();
        if (next == Failover.Next.NEXT_SERVER) {
            attempt();
        } else {
            reject(failure);
        }
    }

    // ---- state the request and response sides share

    Attempt current() {
        return current;
    }

    boolean finished() {
        return finished;
    }

    boolean requestComplete() {
        return request.complete();
    }

    // ---- ending

    void finish() {
        finished = true;
        if (current != null) {
            current.end(false);
        }
        request.release();
        response.release();
        tap.finished();
    }

    private void reject(UpstreamFailure failure) {
        if (!finished && tap.failed(failure.status().equals(HttpResponseStatus.GATEWAY_TIMEOUT))) {
            endLog(failure.note()); // the tap answered (a stale copy): the client gets no error
            finish();
            return;
        }
        reject(failure.status(), failure.note());
    }

    /** @param note the access log note, {@code key="value"} */
    void reject(HttpResponseStatus status, String note) {
        if (finished) {
            return;
        }
        endLog(note);
        finish();
        client.sendError(status, null, !request.clientBodyDone());
    }

    /** @param note the access log note, {@code key="value"} */
    void abortClient(String note) {
        endLog(note);
        finish();
        if (!response.swallowing()) { // a response the tap took over never wrote to the client
            client.channel().close();
        }
    }

    private void endLog(String note) {
        if (current != null) {
            logAttempt(current);
        }
        String before = client.log().note(); // a rate-limit zone's note stays ahead of it
        client.log().note("-".equals(before) ? note : before + ' ' + note);
    }

    /**
     * Lists {@code a} in the access log, once: like nginx's $upstream_addr and $upstream_response_time, every server
     * tried appears, in order, with the time spent on it (failed tries included).
     */
    void logAttempt(Attempt a) {
        if (a.firstLogged()) {
            long nanos = a.elapsedNanos();
            client.log().upstream(a.server.name(), nanos);
            if (nanos >= 0) {
                a.server.meters().responded(nanos);
            }
        }
    }

    @Override
    public void onClientClosed() {
        if (!finished) {
            if (current != null) {
                logAttempt(current); // the 499's $upstream_addr: the server it was waiting on
            }
            finish();
        }
    }

    /**
     * The client sent its FIN while its response is awaited or relayed. Unless the location says
     * {@code ignore-client-abort}, the exchange ends as nginx's does ({@code proxy_ignore_client_abort off}): the
     * upstream connection is closed (its response is unread, so it cannot be pooled), and so is the client's, which
     * the access log records as 499 when no response head went out, else as the status sent and "incomplete".
     * Not the server's fault: no failure is counted against it and nothing is retried. Bytes parked in a temp file
     * count as relayed (they are dropped, the file deleted); once the response's last part has been handed to the
     * client connection the exchange has finished, and what its outbound buffer holds still goes out before the
     * server closes the half-closed connection. A response a cache fill may still store is read on, as nginx reads
     * on a cacheable one: the entry and the requests waiting for it are worth the upstream's time.
     */
    @Override
    public void onClientInputShutdown() {
        if (finished || settings.target().ignoreClientAbort() || tap.storing()) {
            return;
        }
        if (current != null) {
            logAttempt(current); // like nginx's $upstream_addr of a 499: the server it was waiting on
        }
        finish();
        if (!response.swallowing()) { // a response the tap took over never wrote to the client
            client.channel().close();
        }
    }

    // ---- for the WebSocket relay, which takes the connection over after a 101

    ClientExchange client() {
        return client;
    }

    ProxySettings settings() {
        return settings;
    }

    /**
     * Hands the upstream connection to the relay: the exchange is over, the connection never returns to a pool, and
     * its server slot (permit, in-flight count) is the relay's to release.
     */
    Attempt.Handover takeConnection() {
        Attempt a = current;
        logAttempt(a);
        Attempt.Handover h = a.detach();
        finish();
        return h;
    }
}
