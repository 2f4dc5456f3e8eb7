package io.portico.proxy;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.portico.exchange.ClientExchange;

/**
 * The upstream's response on its way to the client: checks the head (a malformed one, a status outside 100-599 or
 * an unasked 101 is the upstream's failure), drops interim 1xx, rewrites the head, and relays the body as the
 * {@link ResponseWriter} it is, reading the upstream only while there is room. On the last content the attempt
 * ends (its connection back to the pool when both sides allow it) before the end is written to the client. Event
 * loop only.
 */
final class ResponseRelay extends ResponseWriter {
    private final ProxyExchange exchange;
    private final ProxySettings settings;
    private final ClientExchange client;
    private final HttpVersion clientVersion;
    private final HttpMethod method;
    /** The client's request head, for the variables of set-response-headers. */
    private final HttpRequest request;
    private final boolean websocket;
    private final ResponseTap tap;
    /** The tap took the response over: its body is read for the tap only, nothing goes to the client. */
    private boolean swallowing;
    private boolean started;
    private boolean upstreamDone; // the upstream response is complete; parked bytes may still go to the client
    private boolean upstreamKeepAlive;
    private boolean interim;
    /** A response head not written yet: it goes out with the first body part, in one write when that is the last. */
    private HttpResponse heldHead;

    ResponseRelay(ProxyExchange exchange, ProxySettings settings, ClientExchange client, HttpRequest request,
            boolean websocket, ResponseTap tap) {
        super(client.channel(), budget(settings), settings.files());
        this.exchange = exchange;
        this.tap = tap;
        this.swallowing = tap.detached();
        this.settings = settings;
        this.client = client;
        this.clientVersion = request.protocolVersion();
        this.method = request.method();
        this.request = request;
        this.websocket = websocket;
    }

    /** Bytes of the response body held in memory when buffering; 0 streams. */
    private static long budget(ProxySettings settings) {
        return settings.target().responseBuffering() ? Math.max(settings.target().proxyBuffers(), 1) : 0;
    }

    // ResponseWriter's events

    @Override
    void drained() {
        Attempt a = exchange.current();
        if (a != null && a.readPaused()) {
            readMore();
        }
    }

    @Override
    void writeFailed(String note) {
        exchange.abortClient(note);
    }

    @Override
    void completing() {
        exchange.finish();
    }

    /** Whether the response head went to the client: from then on a failure can only close the connection. */
    boolean started() {
        return started && heldHead == null;
    }

    /**
     * Whether the upstream's response head arrived and is held back, no byte of it sent yet. A failure now can still
     * give the client a whole error response instead of a closed connection; the head is dropped (it holds no
     * buffer).
     */
    boolean dropHeldHead() {
        boolean held = heldHead != null;
        heldHead = null;
        return held;
    }

    boolean upstreamDone() {
        return upstreamDone;
    }

    boolean swallowing() {
        return swallowing;
    }

    /**
     * Starts reading a freshly sent request's response: auto-read when buffering, one read at a time when streaming.
     */
    void startReading(Channel up) {
        if (buffering() || swallowing) {
            up.config().setAutoRead(true);
        } else {
            up.config().setAutoRead(false);
            up.read();
        }
    }

    /** A decoded response part from the connection of {@code a} (ownership taken). */
    void onMessage(Attempt a, HttpObject msg) {
        if (msg instanceof HttpResponse response && !head(response)) {
            return;
        }
        if (msg instanceof HttpContent content) {
            content(a, content);
        }
    }

    /** Handles a response head; true when the message (a FullHttpResponse) still has content to relay. */
    private boolean head(HttpResponse response) {
        if (!response.decoderResult().isSuccess()) {
            ReferenceCountUtil.release(response);
            exchange.upstreamBroken("malformed response head: " + LogNotes.describe(response.decoderResult().cause()));
            return false;
        }
        int code = response.status().code();
        if (code < 100 || code > 599) {
            // Netty takes any number; a status outside 1xx-5xx is not HTTP, and relaying it broke the client's
            // connection without an answer.
            ReferenceCountUtil.release(response);
            exchange.upstreamBroken("status " + code + " outside 100-599");
            return false;
        }
        if (code == 101) {
            if (websocket) {
                WebSocketRelay.upgrade(exchange, response);
            } else {
                ReferenceCountUtil.release(response);
                exchange.upstreamBroken("101 Switching Protocols not asked for");
            }
            return false;
        }
        if (code < 200) {
            interim = true; // 100 Continue and friends: the client never asked us for them
            ReferenceCountUtil.release(response);
            readMore();
            return false;
        }
        started = true;
        upstreamKeepAlive = HttpUtil.isKeepAlive(response);
        if (!tap.head(response)) {
            swallowing = true;
        }
        if (response instanceof FullHttpResponse) {
            if (!swallowing) {
                ForwardedResponse.rewrite(response, request, client, settings);
            }
            return true;
        }
        if (swallowing) {
            readMore();
            return false;
        }
        ForwardedResponse.rewrite(response, request, client, settings);
        // Held rather than written: a small response's head and body come in one read, and one write of both
        // costs one trip through the client's outbound handlers instead of two. (A head written alone was not
        // flushed before its body either.)
        heldHead = response;
        readMore();
        return false;
    }

    private void content(Attempt a, HttpContent content) {
        if (interim) {
            interim = !(content instanceof LastHttpContent);
            content.release();
            readMore();
            return;
        }
        if (!content.decoderResult().isSuccess()) {
            content.release();
            exchange.upstreamBroken("malformed response body: " + LogNotes.describe(content.decoderResult().cause()));
            return;
        }
        tap.content(content.content());
        if (content instanceof LastHttpContent last) {
            // Everything is settled before the last write: on it the server logs the request and may start the next.
            exchange.logAttempt(a);
            a.server.succeeded();
            a.end(upstreamKeepAlive && exchange.requestComplete());
            upstreamDone = true;
            tap.end();
            if (swallowing) {
                last.release();
                exchange.finish();
                return;
            }
            end(withHeldHead(last));
            return;
        }
        if (swallowing) {
            content.release();
            readMore();
            return;
        }
        if (heldHead != null) {
            client.channel().write(heldHead, client.channel().voidPromise());
            heldHead = null;
        }
        write(content);
        readMore();
    }

    private LastHttpContent withHeldHead(LastHttpContent last) {
        HttpResponse head = heldHead;
        if (head == null) {
            return last;
        }
        heldHead = null;
        return new DefaultFullHttpResponse(head.protocolVersion(), head.status(), last.content(), head.headers(),
                last.trailingHeaders());
    }

    /**
     * Reads on from the upstream only while the client keeps up (streaming) or the buffer budget has room. A
     * buffered response reads with auto-read, switched off only over budget: asking for each read costs two
     * epoll_ctl calls per response, which showed in throughput.
     */
    void readMore() {
        Attempt a = exchange.current();
        Channel up = a == null || exchange.finished() || upstreamDone ? null : a.channel();
        if (up == null) {
            return;
        }
        boolean room = swallowing || room();
        a.readPaused(!room);
        if (buffering() || swallowing) {
            if (up.config().isAutoRead() != room) {
                up.config().setAutoRead(room);
            }
        } else if (room) {
            up.read();
        }
    }

}
