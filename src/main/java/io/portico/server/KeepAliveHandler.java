package io.portico.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ReadGate;
import io.portico.exchange.HttpDates;
import java.util.ArrayDeque;

/**
 * The owner of an HTTP/1.1 connection's exchanges: it tells the other stages ({@link ExchangeEvents}) when a request
 * starts and ends and when its response's head and last part are written, with the keep-alive decision, which is
 * made here and only here. It keeps one request in flight per connection and decides whether the connection
 * outlives it. Pipelined requests
 * wait here, with reads paused, until the response before them is complete, so every handler after this one sees
 * requests strictly one at a time. Every response gets {@code Date}, {@code Server} and the right
 * {@code Connection} header; the connection closes after a response that says close, and nothing the client sent
 * after that request is delivered (a refused request's body, or a pipelined request, is never handled once its
 * refusal said close).
 *
 * <p>{@code OPTIONS *} is answered here, in its turn, and goes no further: it asks about the server, not about a
 * location. A client that half-closes (shuts its sending side after its last request) gets its responses, then
 * the connection closes.
 */
final class KeepAliveHandler extends ChannelDuplexHandler {
    private static final AsciiString SERVER = AsciiString.cached("portico");
    /** The methods Portico serves (TRACE and CONNECT are refused, 405): {@code OPTIONS *} and every 405 list them. */
    static final AsciiString ALLOW = AsciiString.cached("GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");

    private final int maxRequests;
    private final ServerState state;
    private final ArrayDeque<Object> waiting = new ArrayDeque<>();
    private ReadGate gate;
    private ExchangeEvents events;
    private int requests;
    private boolean inFlight;
    private boolean keepAlive;
    private boolean http10;
    /** A response that closes the connection has gone: whatever else arrives is released, never delivered. */
    private boolean closing;
    /** The client shut its sending side: the connection closes after the responses to what it sent. */
    private boolean inputShut;
    /** The current request's body has not ended yet. */
    private boolean bodyOpen;
    /** The body of a request answered here ({@code OPTIONS *}) or refused above ({@link Refusal}) is dropped. */
    private boolean swallowing;
    /** The current request asked for {@code 100 Continue} and has not had it: its body may never be sent. */
    private boolean awaitingContinue;

    KeepAliveHandler(int maxRequests, ServerState state) {
        this.maxRequests = maxRequests;
        this.state = state;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        gate = ReadGate.of(ctx.channel());
        events = ExchangeEvents.of(ctx.channel());
        events.ownerDrops(() -> swallowing = bodyOpen); // a refused request's body is released here as it comes
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if ((inFlight && msg instanceof HttpRequest) || !waiting.isEmpty()) {
            // A pipelined request: hold it (and stop reading more) until the current response is done.
            waiting.add(msg);
            gate.hold(ReadGate.Reason.PIPELINED);
            return;
        }
        deliver(ctx, msg);
    }

    private void deliver(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            inFlight = true;
            requests++;
            http10 = request.protocolVersion().equals(HttpVersion.HTTP_1_0);
            keepAlive = HttpUtil.isKeepAlive(request) && requests < maxRequests
                    && !state.closesAfterResponse(ctx.channel());
            bodyOpen = !(msg instanceof LastHttpContent);
            awaitingContinue = bodyOpen && HttpUtil.is100ContinueExpected(request);
            events.fireRequestStarted(request, bodyOpen && hasBody(request));
            if (!bodyOpen) {
                events.fireRequestEnded();
            }
            if (isOptionsAsterisk(request)) {
                answerOptions(ctx, msg);
                return;
            }
        } else if (msg instanceof LastHttpContent) {
            bodyOpen = false;
            events.fireRequestEnded();
        }
        if (swallowing) {
            swallowing = !(msg instanceof LastHttpContent);
            ReferenceCountUtil.release(msg);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private static boolean isOptionsAsterisk(HttpRequest request) {
        return request.method().equals(HttpMethod.OPTIONS) && request.uri().equals("*");
    }

    /** {@code OPTIONS *}: the methods this server allows, no body, nothing routed or forwarded (RFC 9110 9.3.7). */
    private void answerOptions(ChannelHandlerContext ctx, Object request) {
        swallowing = !(request instanceof LastHttpContent);
        ReferenceCountUtil.release(request);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.EMPTY_BUFFER);
        response.headers().add(HttpHeaderNames.ALLOW, ALLOW).add(HttpHeaderNames.CONTENT_LENGTH, HttpHeaderValues.ZERO);
        write(ctx, response, ctx.voidPromise()); // as if from above: this handler's own keep-alive rules apply
        ctx.flush();
    }

    private static boolean hasBody(HttpRequest request) {
        return HttpUtil.isTransferEncodingChunked(request) || HttpUtil.getContentLength(request, 0L) > 0;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse response) {
            if (!HttpMessages.isInterim(msg)) {
                prepare(response);
                events.fireResponseStarted(response);
            } else if (response.status().code() == 100) {
                awaitingContinue = false;
            }
        }
        if (HttpMessages.endsResponse(msg)) {
            boolean close = !keepAlive || (inputShut && waiting.isEmpty());
            inFlight = false;
            if (close) {
                // Nothing after this request is read or delivered: the response said close (a 417, or a refusal
                // whose body was not read), so a pipelined request behind it must not reach a location.
                closing = true;
                gate.hold(ReadGate.Reason.CLOSING);
                ChannelFuture written = ctx.write(msg, promise.unvoid()).addListener(ChannelFutureListener.CLOSE);
                releaseWaiting();
                events.fireResponseEnded(written, false);
                return;
            }
            events.fireResponseEnded(ctx.write(msg, events.writtenWanted() ? promise.unvoid() : promise), true);
            if (!waiting.isEmpty()) {
                ctx.executor().execute(() -> drainWaiting(ctx));
            }
            return;
        }
        ctx.write(msg, promise);
    }

    private void prepare(HttpResponse response) {
        HttpHeaders h = response.headers();
        h.set(HttpHeaderNames.SERVER, SERVER);
        h.set(HttpHeaderNames.DATE, HttpDates.now());
        if (inputShut && waiting.isEmpty()) {
            keepAlive = false; // the client sends no more requests: say so, and close after this response
        }
        if (awaitingContinue && bodyOpen) {
            // Refused before its 100 Continue (403, 404, 429...): the client may send its body or its next request
            // next, and the bytes cannot tell which (RFC 9110 10.1.1): close rather than guess.
            keepAlive = false;
        }
        String connection = h.get(HttpHeaderNames.CONNECTION);
        if (connection != null && HttpHeaderValues.CLOSE.contentEqualsIgnoreCase(connection)) {
            keepAlive = false;
        }
        // Without a length or chunking the body ends only when the connection does.
        if (keepAlive && !h.contains(HttpHeaderNames.CONTENT_LENGTH) && !HttpUtil.isTransferEncodingChunked(response)
                && response.status().code() != 204 && response.status().code() != 304) {
            keepAlive = false;
        }
        if (!keepAlive) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (http10) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        } else if (connection != null) {
            h.remove(HttpHeaderNames.CONNECTION);
        }
    }

    private void drainWaiting(ChannelHandlerContext ctx) {
        while (!waiting.isEmpty() && !inFlight) {
            deliver(ctx, waiting.poll());
        }
        while (!waiting.isEmpty() && !(waiting.peek() instanceof HttpRequest)) {
            deliver(ctx, waiting.poll());
        }
        // Not after the client's FIN: there is nothing more to read, and epoll refuses to arm reads on it.
        if (waiting.isEmpty() && ctx.channel().isActive() && !inputShut) {
            gate.release(ReadGate.Reason.PIPELINED); // reads resume unless another stage holds them too
        }
    }

    private void releaseWaiting() {
        Object o;
        while ((o = waiting.poll()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    /** No request in flight or waiting: closing now loses nothing. Called on the event loop. */
    boolean idle() {
        return !inFlight && waiting.isEmpty();
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        // After the client's FIN there is nothing to read, and epoll fails (ENOENT) to arm reads on the channel:
        // a handler above that resumes reading (a streaming upload that was paused) must not close it that way.
        if (!inputShut) {
            ctx.read();
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            // The decoder below has already passed on every request the client completed before its FIN.
            inputShut = true;
            if (idle() || (bodyOpen && waiting.isEmpty())) {
                // Nothing to answer, or a request whose body can never end: close now.
                ctx.close();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        releaseWaiting();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseWaiting();
    }
}
