package io.portico.server;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.connection.ReadGate;
import io.portico.metrics.LocationMeters;
import java.util.Iterator;
import java.util.Map;

/**
 * Refuses requests whose framing or head is in doubt, before anything routes them: each gets its status (400,
 * 405 for TRACE and CONNECT, 413, 414, 431) and the connection is closed, because the bytes after a doubtful head cannot be trusted to
 * start the next request. Everything that follows on that connection is released unread. A body whose framing
 * breaks after the response has begun (a location that answers without reading the body) closes the
 * connection without a second response.
 */
final class HttpFramingHandler extends ChannelInboundHandlerAdapter implements ExchangeObserver {
    private final int maxHeaderCount;
    private final long maxBodySize;
    /** Where a request refused here is counted (location ""): no later stage ever sees it. */
    private final LocationMeters refused;
    private boolean rejected;
    /** A response to the current request has begun: a later framing error can only close the connection. */
    private boolean responding;
    /** Requests passed on whose response has not ended yet (pipelined ones wait above, in the keep-alive stage). */
    private int outstanding;
    /** The refusal of a pipelined request, held until the responses to the requests before it have gone out. */
    private HttpResponseStatus deferred;

    HttpFramingHandler(int maxHeaderCount, long maxBodySize, LocationMeters refused) {
        this.maxHeaderCount = maxHeaderCount;
        this.maxBodySize = maxBodySize;
        this.refused = refused;
    }

    private ChannelHandlerContext ctx;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ExchangeEvents.of(ctx.channel()).observe(this);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpObject http) {
            HttpResponseStatus status = check(http);
            if (status != null) {
                rejected = true;
                if (msg instanceof HttpRequest request && ctx.channel().isActive()) {
                    // a refused head went no further: counted here (a body refused later is its request's; a head
                    // cut short by the connection's close, after a 408 say, is answered and counted by nobody)
                    refused.answered(request.method(), status.code(), 0, 0);
                }
                ReferenceCountUtil.release(msg);
                if (responding && !(msg instanceof HttpRequest)) {
                    ctx.close();
                } else if (msg instanceof HttpRequest && outstanding > 0) {
                    // A bad request pipelined behind good ones: answering now would put its error ahead of their
                    // responses (the client would take it for the first one's) and lose them when we close.
                    ReadGate.of(ctx.channel()).hold(ReadGate.Reason.CLOSING);
                    deferred = status;
                } else {
                    reject(ctx, status);
                }
                return;
            }
            if (msg instanceof HttpRequest) {
                responding = false;
                outstanding++;
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void responseStarted(HttpResponse head) {
        responding = true;
    }

    @Override
    public void responseEnded(ChannelFuture written, boolean keepAlive) {
        if (outstanding > 0 && --outstanding == 0 && deferred != null) {
            HttpResponseStatus status = deferred;
            deferred = null;
            reject(ctx, status);
        }
    }

    /** The status that refuses {@code msg}, or null when it may go on. */
    private HttpResponseStatus check(HttpObject msg) {
        DecoderResult result = msg.decoderResult();
        if (result.isFailure()) {
            Throwable cause = result.cause();
            if (cause instanceof TooLongHttpLineException) {
                return HttpResponseStatus.REQUEST_URI_TOO_LONG; // only a request line is refused with it
            }
            if (cause instanceof TooLongHttpHeaderException) {
                return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
            }
            return HttpResponseStatus.BAD_REQUEST;
        }
        if (msg instanceof HttpRequest request) {
            return checkHead(request);
        }
        return null;
    }

    private HttpResponseStatus checkHead(HttpRequest request) {
        HttpVersion version = request.protocolVersion();
        if (!version.equals(HttpVersion.HTTP_1_1) && !version.equals(HttpVersion.HTTP_1_0)) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        // Equal to 1.1 or 1.0 means protocol HTTP, major 1: the text must then be exactly that constant's.
        if (!version.text().equals(HttpVersion.HTTP_1_1.text())
                && !version.text().equals(HttpVersion.HTTP_1_0.text())) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        HttpHeaders h = request.headers();
        if (h.size() > maxHeaderCount) {
            return HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        }
        // One pass over the fields, counting the three that frame a request.
        int hosts = 0;
        int encodings = 0;
        int lengths = 0;
        CharSequence host = null;
        CharSequence encoding = null;
        CharSequence length = null;
        Iterator<Map.Entry<CharSequence, CharSequence>> it = h.iteratorCharSequence();
        while (it.hasNext()) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            CharSequence name = e.getKey();
            if (HttpHeaderNames.HOST.contentEqualsIgnoreCase(name)) {
                hosts++;
                host = e.getValue();
            } else if (HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)) {
                encodings++;
                encoding = e.getValue();
            } else if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
                lengths++;
                length = e.getValue();
            }
        }
        if (hosts > 1 || (hosts == 0 && version.equals(HttpVersion.HTTP_1_1))
                || (hosts == 1 && !HeadSyntax.validHost(host))) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        // Only exactly "chunked", once, on HTTP/1.1: every other spelling is a smuggling vector.
        if (encodings > 1 || (encodings == 1
                && (!HttpHeaderValues.CHUNKED.contentEquals(encoding) || version.equals(HttpVersion.HTTP_1_0)))) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        if (lengths > 1) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        if (lengths == 1) {
            String cl = length.toString();
            if (cl.isEmpty() || cl.length() > 18 || !cl.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return HttpResponseStatus.BAD_REQUEST;
            }
            if (Long.parseLong(cl) > maxBodySize) {
                return HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE;
            }
        }
        HttpMethod method = request.method();
        if (method.equals(HttpMethod.TRACE) || method.equals(HttpMethod.CONNECT)) {
            // nginx's answer: TRACE would echo the head (cookies included) back to a script; CONNECT is not proxied.
            return HttpResponseStatus.METHOD_NOT_ALLOWED;
        }
        String uri = request.uri();
        if (uri.isEmpty() || !HeadSyntax.validTarget(uri)) {
            return HttpResponseStatus.BAD_REQUEST;
        }
        char first = uri.charAt(0);
        if (first == '*' ? !(uri.length() == 1 && method.equals(HttpMethod.OPTIONS))
                : first != '/' && !absoluteFormMatchesHost(uri, host)) {
            return HttpResponseStatus.BAD_REQUEST; // "*" is OPTIONS's alone (RFC 9112 3.2.4)
        }
        return null;
    }

    /** An absolute-form target is allowed only when its authority is the Host header (RFC 9112 3.2.2). */
    private static boolean absoluteFormMatchesHost(String uri, CharSequence host) {
        String lower = uri.length() > 8 ? uri.substring(0, 8).toLowerCase() : uri.toLowerCase();
        int start = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
        if (start < 0 || host == null) {
            return false;
        }
        int end = uri.indexOf('/', start);
        String authority = end < 0 ? uri.substring(start) : uri.substring(start, end);
        return authority.equalsIgnoreCase(host.toString());
    }

    private static void reject(ChannelHandlerContext ctx, HttpResponseStatus status) {
        // Answer below routing, then close: the client reads its error, and nothing after it is parsed.
        Refusal.refuseAndClose(ctx, status);
    }
}
