package io.portico.proxy;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.route.ClientExchange;
import io.portico.route.Exchange;
import io.portico.upstream.Selection;
import io.portico.upstream.UpstreamConnection;
import io.portico.upstream.UpstreamServer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One client request proxied to an upstream, on the client's event loop. Phases: (buffer the body) -> pick a server
 * -> take a permit -> take a pooled or new connection -> send -> relay the response -> return the connection.
 * Before the response head reaches the client any failure becomes 502/503/504 (or a retry, see {@link #onClosed});
 * after it, the client connection is closed, since the response can no longer be fixed.
 */
final class ProxyExchange implements Exchange, UpstreamConnection.Listener {
    private final ProxySettings settings;
    private final ClientExchange client;
    private final Channel clientChannel;
    private final EventLoop loop;
    private final HttpRequest upstreamRequest;
    private final HttpVersion clientVersion;
    private final boolean idempotent;
    private final boolean websocket;
    private final String hashKey;
    private final List<UpstreamServer> tried = new ArrayList<>(2);
    private final long readTimeoutNanos;
    private final long sendTimeoutNanos;

    // The request body: buffered whole, or streamed as it comes (pending until a connection takes it).
    private final RequestBody buffered;
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
    private boolean clientBodyDone;
    private boolean bodyStreamed; // body bytes went upstream as they came: the request cannot be replayed
    private long streamedBytes;
    private boolean clientPaused;

    private Attempt current;
    private int attempts;
    private boolean staleRetried;
    private String lastFailure = "no live upstreams";

    private boolean responseStarted;
    private boolean upstreamDone; // the upstream response is complete; parked bytes may still go to the client
    private final ResponseWriter writer;
    private boolean upstreamKeepAlive;
    private boolean interim;
    private boolean finished;

    ProxyExchange(ProxySettings settings, ClientExchange client, HttpRequest request) {
        this.settings = settings;
        this.client = client;
        this.clientChannel = client.channel();
        this.loop = clientChannel.eventLoop();
        this.clientVersion = request.protocolVersion();
        this.idempotent = Methods.idempotent(request.method());
        this.websocket = HopByHop.isWebSocketUpgrade(request.headers());
        this.hashKey = settings.pool().hashKey().evaluate(request, client.clientAddress());
        this.readTimeoutNanos = settings.pool().config().readTimeout().toNanos();
        this.sendTimeoutNanos = settings.pool().config().sendTimeout().toNanos();
        long budget = settings.target().responseBuffering() ? Math.max(settings.target().proxyBuffers(), 1) : 0;
        this.writer = new ResponseWriter(clientChannel, budget, settings.files(), loop, () -> {
            if (current != null && current.readPaused()) {
                readMore();
            }
        }, this::abortClient, this::finish);
        boolean hasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
        this.buffered = hasBody && settings.target().requestBuffering() && !websocket
                ? new RequestBody(settings.maxBodySize(), settings.target().clientBodyBufferSize(), settings.files(), loop,
                        backlog -> {
                            if (backlog) {
                                pauseClient();
                            } else {
                                resumeClient();
                            }
                        })
                : null;
        this.upstreamRequest = ForwardedRequest.build(client, request, settings, websocket, -1);
    }

    void start() {
        if (buffered == null) {
            attempt();
        }
    }

    // ---- the request body from the client

    @Override
    public void onContent(HttpContent content) {
        if (finished || upstreamDone) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (buffered != null) {
            boolean fits = buffered.add(content.content().retain());
            content.release();
            if (!fits) {
                reject(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request body over maxBodySize");
            } else if (last) {
                bufferedBodyComplete();
            }
            return;
        }
        streamedBytes += content.content().readableBytes();
        if (streamedBytes > settings.maxBodySize()) {
            content.release();
            reject(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request body over maxBodySize");
            return;
        }
        clientBodyDone |= last;
        if (current == null || !current.isRequestSent()) {
            pending.add(content);
            pauseClient();
            return;
        }
        sendBody(content);
        current.channel().flush();
    }

    private void bufferedBodyComplete() {
        clientBodyDone = true;
        resumeClient();
        upstreamRequest.headers().set("Content-Length", buffered.size());
        upstreamRequest.headers().remove("Transfer-Encoding");
        buffered.whenStored(stored -> {
            if (stored) {
                attempt();
            } else {
                reject(HttpResponseStatus.INTERNAL_SERVER_ERROR, "request body temp file failed");
            }
        });
    }

    private void sendBody(HttpContent content) {
        Channel up = current.channel();
        bodyStreamed |= content.content().isReadable();
        up.write(content);
        if (content instanceof LastHttpContent) {
            armReadTimer();
        } else if (!up.isWritable()) {
            pauseClient();
            watchSend();
        }
    }

    private void pauseClient() {
        if (!clientPaused && !clientBodyDone) {
            clientPaused = true;
            clientChannel.config().setAutoRead(false);
        }
    }

    private void resumeClient() {
        if (clientPaused) {
            clientPaused = false;
            clientChannel.config().setAutoRead(true);
        }
    }

    @Override
    public void onWritabilityChanged() {
        Channel up = current == null ? null : current.channel();
        if (up == null) {
            return;
        }
        if (!up.isWritable()) {
            watchSend();
            return;
        }
        current.sendProgressed();
        if (current.isRequestSent()) {
            if (buffered != null) {
                buffered.writable();
            } else {
                resumeClient();
            }
        }
    }

    // ---- choosing a server and a connection, sending the request

    private void attempt() {
        if (finished) {
            return;
        }
        UpstreamServer s = settings.pool().select(new Selection(hashKey, client.clientAddress().getAddress(), tried));
        if (s == null) {
            reject(HttpResponseStatus.BAD_GATEWAY, lastFailure);
            return;
        }
        tried.add(s);
        attempts++;
        attemptOn(s, false);
    }

    private void attemptOn(UpstreamServer s, boolean fresh) {
        Attempt a = new Attempt(s, loop);
        current = a;
        a.acquirePermit(
                () -> a.connect(settings.pool().connections(loop), fresh, this, () -> send(a), cause -> connectFailed(a, cause)),
                () -> reject(HttpResponseStatus.SERVICE_UNAVAILABLE, "upstream " + s + " at maxConnections, queue full or timed out"));
    }

    private void connectFailed(Attempt a, Throwable cause) {
        lastFailure = "connect to " + a.server + " failed: " + cause;
        a.server.failed();
        a.end(false);
        // Nothing was sent, so any method may go to the next server.
        if (attempts <= settings.retries()) {
            attempt();
        } else {
            // A connect timeout too: configuration.md promises 502 once the servers to try are used up.
            reject(HttpResponseStatus.BAD_GATEWAY, lastFailure);
        }
    }

    private void send(Attempt a) {
        Channel up = a.channel();
        ForwardedRequest.hostFor(upstreamRequest, a.server.address(), settings);
        up.write(upstreamRequest);
        a.requestSent();
        if (buffered != null) {
            buffered.writeTo(up, () -> a == current && !a.ended(), this::armReadTimer);
        } else if (!pending.isEmpty()) {
            for (HttpContent content; (content = pending.poll()) != null; ) {
                sendBody(content);
            }
        } else if (clientBodyDone) {
            // A replay of a request whose (empty) body already ended.
            sendBody(LastHttpContent.EMPTY_LAST_CONTENT);
        }
        up.flush();
        if (up.isWritable()) {
            resumeClient();
        }
        if (writer.buffering()) {
            up.config().setAutoRead(true);
        } else {
            up.config().setAutoRead(false);
            up.read();
        }
    }

    private void armReadTimer() {
        Attempt a = current;
        a.armReadTimer(readTimeoutNanos, () -> timedOut(a, "read"));
    }

    private void watchSend() {
        Attempt a = current;
        a.watchSend(sendTimeoutNanos, () -> timedOut(a, "send"));
    }

    private void timedOut(Attempt a, String what) {
        a.server.failed();
        String reason = "upstream " + a.server + " " + what + " timed out";
        if (responseStarted) {
            abortClient(reason);
        } else {
            reject(HttpResponseStatus.GATEWAY_TIMEOUT, reason);
        }
    }

    // ---- the response from the upstream

    @Override
    public void onMessage(HttpObject msg) {
        if (finished) {
            ReferenceCountUtil.release(msg);
            return;
        }
        current.readSomething();
        if (!current.readTimerArmed()) {
            armReadTimer(); // the upstream answered before the whole request was sent
        }
        if (msg instanceof HttpResponse response && !responseHead(response)) {
            return;
        }
        if (msg instanceof HttpContent content) {
            responseContent(content);
        }
    }

    /** Handles a response head; true when the message (a FullHttpResponse) still has content to relay. */
    private boolean responseHead(HttpResponse response) {
        if (!response.decoderResult().isSuccess()) {
            ReferenceCountUtil.release(response);
            upstreamBroken("malformed upstream response head: " + response.decoderResult().cause());
            return false;
        }
        int code = response.status().code();
        if (code < 100 || code > 599) {
            // Netty takes any number; a status outside 1xx-5xx is not HTTP, and relaying it broke the client's
            // connection without an answer.
            ReferenceCountUtil.release(response);
            upstreamBroken("upstream status " + code + " outside 100-599");
            return false;
        }
        if (code == 101) {
            if (websocket) {
                WebSocketRelay.upgrade(this, response);
            } else {
                ReferenceCountUtil.release(response);
                upstreamBroken("upstream switched protocols unasked");
            }
            return false;
        }
        if (code < 200) {
            interim = true; // 100 Continue and friends: the client never asked us for them
            ReferenceCountUtil.release(response);
            readMore();
            return false;
        }
        responseStarted = true;
        upstreamKeepAlive = HttpUtil.isKeepAlive(response);
        ForwardedResponse.rewrite(response, upstreamRequest.method(), clientVersion, settings);
        if (response instanceof FullHttpResponse) {
            return true;
        }
        clientChannel.write(response);
        readMore();
        return false;
    }

    private void responseContent(HttpContent content) {
        if (interim) {
            interim = !(content instanceof LastHttpContent);
            content.release();
            readMore();
            return;
        }
        if (!content.decoderResult().isSuccess()) {
            content.release();
            upstreamBroken("malformed upstream response body: " + content.decoderResult().cause());
            return;
        }
        if (content instanceof LastHttpContent last) {
            // Everything is settled before the last write: on it the server logs the request and may start the next.
            Attempt a = current;
            client.log().upstream(a.server.address().toString(), a.elapsedNanos());
            a.server.succeeded();
            a.end(upstreamKeepAlive && (buffered != null || clientBodyDone));
            upstreamDone = true;
            writer.end(last);
            return;
        }
        writer.write(content);
        readMore();
    }

    /**
     * Reads on from the upstream only while the client keeps up (streaming) or the buffer budget has room. A
     * buffered response reads with auto-read, switched off only over budget: asking for each read costs two
     * epoll_ctl calls per response, which showed in throughput.
     */
    private void readMore() {
        Channel up = current == null || finished || upstreamDone ? null : current.channel();
        if (up == null) {
            return;
        }
        boolean room = writer.room();
        current.readPaused(!room);
        if (writer.buffering()) {
            if (up.config().isAutoRead() != room) {
                up.config().setAutoRead(room);
            }
        } else if (room) {
            up.read();
        }
    }

    /**
     * The connection closed or failed. Before the response head: the keep-alive race on a reused connection is
     * retried once on a fresh connection to the same server when the request is idempotent or its body buffered;
     * otherwise the next server gets an idempotent request with a replayable body; otherwise 502.
     */
    @Override
    public void onClosed(Throwable cause) {
        if (finished) {
            return;
        }
        Attempt a = current;
        String reason = "upstream " + a.server + (cause == null ? " closed the connection" : " failed: " + cause);
        if (responseStarted) {
            a.server.failed();
            abortClient(reason);
            return;
        }
        lastFailure = reason;
        boolean reused = a.reused();
        a.end(false);
        boolean replayable = buffered != null || !bodyStreamed;
        if (reused && !staleRetried && replayable && (idempotent || buffered != null)) {
            staleRetried = true; // not the server's fault: no failure counted
            attemptOn(a.server, true);
            return;
        }
        a.server.failed();
        if (attempts <= settings.retries() && idempotent && replayable) {
            attempt();
        } else {
            reject(HttpResponseStatus.BAD_GATEWAY, reason);
        }
    }

    private void upstreamBroken(String reason) {
        current.server.failed();
        if (responseStarted) {
            abortClient(reason);
        } else {
            reject(HttpResponseStatus.BAD_GATEWAY, reason);
        }
    }

    // ---- ending

    private void finish() {
        finished = true;
        if (current != null) {
            current.end(false);
        }
        if (buffered != null) {
            buffered.release();
        }
        writer.release();
        for (HttpContent c; (c = pending.poll()) != null; ) {
            c.release();
        }
        resumeClient();
    }

    private void reject(HttpResponseStatus status, String reason) {
        if (finished) {
            return;
        }
        logFailedUpstream();
        finish();
        client.log().note(reason);
        client.sendError(status, null, !clientBodyDone);
    }

    private void abortClient(String reason) {
        logFailedUpstream();
        finish();
        client.log().note(reason);
        clientChannel.close();
    }

    /** Like nginx's $upstream_addr, the log names the server that failed (its time: -1, it did not answer). */
    private void logFailedUpstream() {
        if (current != null && "-".equals(client.log().upstream())) {
            client.log().upstream(current.server.address().toString(), -1);
        }
    }

    @Override
    public void onClientClosed() {
        if (!finished) {
            finish();
        }
    }

    // ---- for the WebSocket relay, which takes the connection over after a 101

    ClientExchange client() {
        return client;
    }

    ProxySettings settings() {
        return settings;
    }

    /** Hands the upstream connection to the relay: the exchange is over, the connection never returns to a pool. */
    UpstreamConnection takeConnection() {
        Attempt a = current;
        client.log().upstream(a.server.address().toString(), a.elapsedNanos());
        UpstreamConnection c = a.detach();
        finish();
        return c;
    }
}
