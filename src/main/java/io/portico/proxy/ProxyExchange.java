package io.portico.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ConnectTimeoutException;
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
import io.netty.util.concurrent.ScheduledFuture;
import io.portico.route.ClientExchange;
import io.portico.route.Exchange;
import io.portico.upstream.ConnectionLimit;
import io.portico.upstream.LoopConnections;
import io.portico.upstream.Selection;
import io.portico.upstream.UpstreamConnection;
import io.portico.upstream.UpstreamServer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One client request proxied to an upstream, on the client's event loop. Phases: (buffer the body) -> pick a server
 * -> take a permit -> take a pooled or new connection -> send -> relay the response -> return the connection.
 * Before the response head reaches the client any failure becomes 502/503/504 (or a retry); after it, the client
 * connection is closed, since the response can no longer be fixed.
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
    private final long responseBudget;

    private RequestBody buffered; // non-null while a complete body is being (or was) buffered
    private final ArrayDeque<HttpContent> pending = new ArrayDeque<>(2);
    private boolean clientBodyDone;
    private boolean bodyStreamed; // body bytes went upstream as they came: the request cannot be replayed
    private long streamedBytes;
    private boolean clientPaused;

    private int attempt; // bumped when an attempt ends, so late callbacks of an older one are ignored
    private int attempts;
    private boolean staleRetried;
    private UpstreamServer server;
    private boolean activeCounted;
    private boolean waitingPermit;
    private ConnectionLimit.Ticket ticket;
    private boolean permitHeld;
    private UpstreamConnection connection;
    private long attemptStart;
    private boolean requestSent;
    private ScheduledFuture<?> readTimer;
    private ScheduledFuture<?> sendTimer;
    private long lastRead;
    private boolean readPaused;
    private String lastFailure = "no live upstreams";

    private boolean responseStarted;
    private boolean upstreamKeepAlive;
    private boolean interim;
    private long clientPending;
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
        this.responseBudget = settings.target().responseBuffering() ? Math.max(settings.target().proxyBuffers(), 1) : 0;
        boolean hasBody = HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
        if (hasBody && settings.target().requestBuffering() && !websocket) {
            buffered = new RequestBody(settings.maxBodySize(), settings.target().clientBodyBufferSize(), settings.files(), loop,
                    backlog -> {
                        if (backlog) {
                            pauseClient();
                        } else {
                            resumeClient();
                        }
                    });
        }
        this.upstreamRequest = ForwardedRequest.build(client, request, settings, websocket, -1);
    }

    void start() {
        if (buffered == null) {
            attempt();
        }
    }

    // ---- request body from the client

    @Override
    public void onContent(HttpContent content) {
        if (finished) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (buffered != null && !clientBodyDone) {
            if (!buffered.add(content.content().retain())) {
                content.release();
                reject(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request body over maxBodySize");
                return;
            }
            content.release();
            if (last) {
                clientBodyDone = true;
                resumeClient();
                upstreamRequest.headers().set("Content-Length", buffered.size());
                upstreamRequest.headers().remove("Transfer-Encoding");
                buffered.whenStored(stored -> {
                    if (!stored) {
                        reject(HttpResponseStatus.INTERNAL_SERVER_ERROR, "request body temp file failed");
                    } else {
                        attempt();
                    }
                });
            }
            return;
        }
        streamedBytes += content.content().readableBytes();
        if (streamedBytes > settings.maxBodySize()) {
            content.release();
            reject(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "request body over maxBodySize");
            return;
        }
        if (last) {
            clientBodyDone = true;
        }
        if (connection == null || !requestSent) {
            pending.add(content);
            pauseClient();
            return;
        }
        sendBody(content);
        connection.channel().flush();
    }

    private void sendBody(HttpContent content) {
        Channel up = connection.channel();
        if (content.content().isReadable()) {
            bodyStreamed = true;
        }
        boolean last = content instanceof LastHttpContent;
        up.write(content);
        if (last) {
            armReadTimer();
        } else if (!up.isWritable()) {
            pauseClient();
            watchSend();
        }
    }

    /** The upstream stopped taking request bytes: {@code sendTimeout} without progress fails the attempt. */
    private void watchSend() {
        if (sendTimer != null) {
            return;
        }
        int id = attempt;
        sendTimer = loop.schedule(() -> {
            sendTimer = null;
            if (id == attempt && !finished && connection != null && !connection.channel().isWritable()) {
                server.failed();
                String reason = "upstream " + server + " send timed out";
                if (responseStarted) {
                    abortClient(reason);
                } else {
                    reject(HttpResponseStatus.GATEWAY_TIMEOUT, reason);
                }
            }
        }, settings.pool().config().sendTimeout().toNanos(), TimeUnit.NANOSECONDS);
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
        if (connection == null) {
            return;
        }
        if (!connection.channel().isWritable()) {
            watchSend();
            return;
        }
        if (sendTimer != null) {
            sendTimer.cancel(false);
            sendTimer = null;
        }
        if (requestSent) {
            if (buffered != null) {
                buffered.writable();
            } else {
                resumeClient();
            }
        }
    }

    // ---- choosing a server and a connection

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
        server = s;
        s.requestStarted();
        activeCounted = true;
        int id = attempt;
        waitingPermit = true;
        ConnectionLimit.Ticket t = s.limit().acquire(loop, new ConnectionLimit.Grant() {
            @Override
            public void granted() {
                waitingPermit = false;
                if (id != attempt || finished) {
                    s.limit().release();
                    return;
                }
                permitHeld = true;
                connect(fresh);
            }

            @Override
            public void rejected() {
                waitingPermit = false;
                if (id == attempt && !finished) {
                    reject(HttpResponseStatus.SERVICE_UNAVAILABLE, "upstream " + s + " at maxConnections, queue full or timed out");
                }
            }
        });
        if (waitingPermit && id == attempt) {
            ticket = t;
        }
    }

    private void connect(boolean fresh) {
        attemptStart = System.nanoTime();
        LoopConnections pool = settings.pool().connections(loop);
        UpstreamConnection idle = fresh ? null : pool.pollIdle(server);
        if (idle != null) {
            use(idle);
            return;
        }
        int id = attempt;
        UpstreamServer s = server;
        pool.connect(s, c -> {
            if (id != attempt || finished) {
                c.release(true);
            } else {
                use(c);
            }
        }, cause -> {
            if (id == attempt && !finished) {
                connectFailed(cause);
            }
        });
    }

    private void connectFailed(Throwable cause) {
        UpstreamServer s = server;
        lastFailure = "connect to " + s + " failed: " + cause;
        s.failed();
        endAttempt(false);
        // Nothing was sent, so any method may go to the next server.
        if (attempts <= settings.retries()) {
            attempt();
        } else {
            reject(cause instanceof ConnectTimeoutException ? HttpResponseStatus.GATEWAY_TIMEOUT : HttpResponseStatus.BAD_GATEWAY, lastFailure);
        }
    }

    private void use(UpstreamConnection c) {
        connection = c;
        c.attach(this);
        Channel up = c.channel();
        ForwardedRequest.hostFor(upstreamRequest, server.address(), settings);
        up.write(upstreamRequest);
        requestSent = true;
        if (buffered != null) {
            int id = attempt;
            buffered.writeTo(up, () -> id == attempt && !finished, this::armReadTimer);
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
        if (responseBudget > 0) {
            up.config().setAutoRead(true);
        } else {
            up.config().setAutoRead(false);
            up.read();
        }
    }

    // ---- the response from the upstream

    @Override
    public void onMessage(HttpObject msg) {
        if (finished) {
            ReferenceCountUtil.release(msg);
            return;
        }
        lastRead = System.nanoTime();
        if (readTimer == null) {
            armReadTimer(); // the upstream answered before the whole request was sent
        }
        if (msg instanceof HttpResponse response) {
            if (!response.decoderResult().isSuccess()) {
                ReferenceCountUtil.release(msg);
                upstreamBroken("malformed upstream response head: " + response.decoderResult().cause());
                return;
            }
            int code = response.status().code();
            if (code == 101) {
                if (websocket) {
                    WebSocketRelay.upgrade(this, response);
                } else {
                    ReferenceCountUtil.release(msg);
                    upstreamBroken("upstream switched protocols unasked");
                }
                return;
            }
            if (code < 200) {
                interim = true; // 100 Continue and friends: the client never asked us for them
                ReferenceCountUtil.release(msg);
                readMore();
                return;
            }
            responseStarted = true;
            upstreamKeepAlive = HttpUtil.isKeepAlive(response);
            ForwardedResponse.rewrite(response, upstreamRequest.method(), clientVersion, settings);
            if (!(msg instanceof FullHttpResponse)) {
                clientChannel.write(response);
                readMore();
                return;
            }
        }
        HttpContent content = (HttpContent) msg;
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
        if (content instanceof LastHttpContent) {
            // Everything is settled before the last write: on it the server logs the request and may start the next.
            client.log().upstream(server.address().toString(), System.nanoTime() - attemptStart);
            responseComplete();
            clientChannel.writeAndFlush(content);
            return;
        }
        int n = content.content().readableBytes();
        clientPending += n;
        clientChannel.writeAndFlush(content).addListener(f -> clientWritten(n));
        readMore();
    }

    private void clientWritten(int n) {
        clientPending -= n;
        if (readPaused) {
            readMore();
        }
    }

    /**
     * Reads on from the upstream only while the client keeps up (streaming) or the buffer budget has room. A
     * buffered response reads with auto-read, switched off only over budget: asking for each read costs two
     * epoll_ctl calls per response, which showed in throughput.
     */
    private void readMore() {
        if (connection == null || finished) {
            return;
        }
        Channel up = connection.channel();
        if (responseBudget > 0) {
            boolean room = clientPending < responseBudget;
            readPaused = !room;
            if (up.config().isAutoRead() != room) {
                up.config().setAutoRead(room);
            }
            return;
        }
        boolean room = clientChannel.isWritable();
        readPaused = !room;
        if (room) {
            up.read();
        }
    }

    private void responseComplete() {
        server.succeeded();
        boolean requestComplete = buffered != null || clientBodyDone;
        endAttempt(upstreamKeepAlive && requestComplete);
        finish();
    }

    private void armReadTimer() {
        lastRead = System.nanoTime();
        if (readTimer == null) {
            int id = attempt;
            readTimer = loop.schedule(() -> readTimerFired(id), readTimeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void readTimerFired(int id) {
        if (id != attempt || finished) {
            return;
        }
        long idle = System.nanoTime() - lastRead;
        if (readPaused || idle < readTimeoutNanos) {
            // Waiting on a slow client is not the upstream's fault; otherwise time is not up yet.
            long delay = readPaused ? readTimeoutNanos : readTimeoutNanos - idle;
            readTimer = loop.schedule(() -> readTimerFired(id), delay, TimeUnit.NANOSECONDS);
            return;
        }
        readTimer = null;
        String reason = "upstream " + server + " read timed out";
        server.failed();
        if (responseStarted) {
            abortClient(reason);
        } else {
            reject(HttpResponseStatus.GATEWAY_TIMEOUT, reason);
        }
    }

    @Override
    public void onClosed(Throwable cause) {
        if (finished) {
            return;
        }
        UpstreamServer s = server;
        boolean reused = connection != null && connection.reused();
        String reason = "upstream " + s + (cause == null ? " closed the connection" : " failed: " + cause);
        if (responseStarted) {
            s.failed();
            abortClient(reason);
            return;
        }
        lastFailure = reason;
        endAttempt(false);
        boolean replayable = buffered != null || !bodyStreamed;
        if (reused && !staleRetried && replayable && (idempotent || buffered != null)) {
            // The keep-alive race: the server closed an idle connection as we reused it. Not the server's fault.
            staleRetried = true;
            attemptOn(s, true);
            return;
        }
        s.failed();
        if (attempts <= settings.retries() && idempotent && replayable) {
            attempt();
        } else {
            reject(HttpResponseStatus.BAD_GATEWAY, reason);
        }
    }

    private void upstreamBroken(String reason) {
        server.failed();
        if (responseStarted) {
            abortClient(reason);
        } else {
            reject(HttpResponseStatus.BAD_GATEWAY, reason);
        }
    }

    // ---- ending

    /** Ends the current attempt: timers, permit, counters; the connection is pooled when {@code reusable}. */
    private void endAttempt(boolean reusable) {
        attempt++;
        if (readTimer != null) {
            readTimer.cancel(false);
            readTimer = null;
        }
        if (sendTimer != null) {
            sendTimer.cancel(false);
            sendTimer = null;
        }
        readPaused = false;
        requestSent = false;
        if (connection != null) {
            connection.release(reusable);
            connection = null;
        }
        if (ticket != null) {
            ticket.cancel();
            ticket = null;
        }
        waitingPermit = false;
        if (permitHeld) {
            permitHeld = false;
            server.limit().release();
        }
        if (activeCounted) {
            activeCounted = false;
            server.requestEnded();
        }
    }

    private void finish() {
        finished = true;
        if (buffered != null) {
            buffered.release();
        }
        for (HttpContent c; (c = pending.poll()) != null; ) {
            c.release();
        }
        resumeClient();
    }

    private void reject(HttpResponseStatus status, String reason) {
        if (finished) {
            return;
        }
        endAttempt(false);
        boolean close = !clientBodyDone;
        finish();
        client.log().note(reason);
        client.sendError(status, null, close);
    }

    private void abortClient(String reason) {
        endAttempt(false);
        finish();
        client.log().note(reason);
        clientChannel.close();
    }

    @Override
    public void onClientClosed() {
        if (!finished) {
            endAttempt(false);
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
        UpstreamConnection c = connection;
        client.log().upstream(server.address().toString(), System.nanoTime() - attemptStart);
        connection = null;
        endAttempt(false);
        finish();
        return c;
    }
}
