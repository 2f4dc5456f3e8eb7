package io.portico.proxy;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.portico.config.UpstreamProtocol;
import io.portico.connection.ReadGate;
import io.portico.exchange.ClientExchange;
import io.portico.upstream.CgiParams;
import java.util.ArrayDeque;

/**
 * The client's request on its way upstream: the rewritten head, and the body either buffered whole before any
 * server is chosen ({@link RequestBody}) or streamed as it arrives, parked until a connection takes it. The client
 * is not read while the upstream cannot take more (streaming) or the buffer's file writes lag. Event loop only.
 */
final class RequestForwarder {
    private static final String BODY_TOO_LARGE = LogNotes.quoted("error", "request body over max-body-size");
    private static final String BODY_NOT_STORED = LogNotes.quoted("error", "request body temp file failed");
    private final ProxyExchange exchange;
    private final ProxySettings settings;
    private final Channel clientChannel;
    private final ForwardedHead head;
    private final RequestBody buffered; // null: streamed, or no body
    private final CgiParams variables; // the CGI variables the head does not carry (uwsgi, FastCGI); null for HTTP
    private final boolean whole; // came whole without a body: its head is the whole request
    /** Body parts that came before a connection took the request; made on the first (most requests have none). */
    private ArrayDeque<HttpContent> pending;
    private boolean clientBodyDone;
    private boolean bodyStreamed; // body bytes went upstream as they came: the request cannot be replayed
    private long streamedBytes;
    private boolean clientPaused;

    RequestForwarder(ProxyExchange exchange, ProxySettings settings, ClientExchange client, HttpRequest request,
            boolean websocket) {
        this.exchange = exchange;
        this.settings = settings;
        this.clientChannel = client.channel();
        boolean chunked = HttpUtil.isTransferEncodingChunked(request);
        boolean hasBody = chunked || HttpUtil.getContentLength(request, 0L) > 0;
        UpstreamProtocol protocol = settings.pool().config().protocol();
        boolean cgi = protocol != UpstreamProtocol.HTTP;
        // A CGI app reads CONTENT_LENGTH bytes: a chunked body is read whole first, whatever the location says
        // (nginx's uwsgi_request_buffering and fastcgi_request_buffering do the same).
        boolean buffer = settings.target().requestBuffering() || (cgi && chunked);
        this.buffered = hasBody && buffer && !websocket
                ? new RequestBody(settings.maxBodySize(), settings.target().clientBodyBufferSize(), settings.files(),
                        clientChannel.eventLoop(), backlog -> {
                            if (backlog) {
                                pauseClient();
                            } else {
                                resumeClient();
                            }
                        })
                : null;
        this.head = ForwardedRequest.build(client, request, settings, websocket, buffered != null);
        this.variables = cgi
                ? CgiVariables.of(client, request, settings, protocol == UpstreamProtocol.FASTCGI) : null;
        // A request without a body arrives whole (see server.ServerCodec) and goes upstream as one message; its
        // end, which the exchange still hands over as a separate part, is not sent again.
        this.whole = request instanceof FullHttpRequest full && !full.content().isReadable();
        this.clientBodyDone = whole;
    }

    /** Whether the body is read whole before a server is chosen (so the exchange waits for it). */
    boolean bodyBuffered() {
        return buffered != null;
    }

    /** Whether the request can be sent again: no body byte has gone upstream that cannot be sent a second time. */
    boolean replayable() {
        return buffered != null || !bodyStreamed;
    }

    /** Whether the upstream got (or will get, from the buffer) the whole request: then its connection may be reused. */
    boolean complete() {
        return buffered != null || clientBodyDone;
    }

    /** Whether the client sent its whole body (else its connection cannot be kept after an error page). */
    boolean clientBodyDone() {
        return clientBodyDone;
    }

    /** A body chunk from the client (ownership taken); {@code current} is the attempt in progress, or null. */
    void onContent(HttpContent content, Attempt current) {
        if (whole) {
            content.release();
            return;
        }
        boolean last = content instanceof LastHttpContent;
        if (buffered != null) {
            boolean fits = buffered.add(content.content().retain());
            content.release();
            if (!fits) {
                exchange.reject(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, BODY_TOO_LARGE);
            } else if (last) {
                bufferedBodyComplete();
            }
            return;
        }
        streamedBytes += content.content().readableBytes();
        if (streamedBytes > settings.maxBodySize()) {
            content.release();
            exchange.reject(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, BODY_TOO_LARGE);
            return;
        }
        clientBodyDone |= last;
        if (current == null || !current.isRequestSent()) {
            if (pending == null) {
                pending = new ArrayDeque<>(2);
            }
            pending.add(content);
            pauseClient();
            return;
        }
        sendBody(current.channel(), content);
        current.channel().flush();
    }

    private void bufferedBodyComplete() {
        clientBodyDone = true;
        resumeClient();
        head.contentLength(buffered.size());
        buffered.whenStored(stored -> {
            if (stored) {
                exchange.attempt();
            } else {
                exchange.reject(HttpResponseStatus.INTERNAL_SERVER_ERROR, BODY_NOT_STORED);
            }
        });
    }

    /** Writes the head and whatever body there is on the connection of {@code a}, and flushes. */
    void sendOn(Attempt a) {
        Channel up = a.channel();
        if (variables != null) {
            up.write(variables, up.voidPromise()); // held by the encoder until the head
            up.write(head.headers(a.server), up.voidPromise());
        } else {
            // The HTTP encoder writes the head's lines from the client's fields (ForwardedHead): no copy of them.
            up.write(head.message(a.server), up.voidPromise());
        }
        a.requestSent();
        if (whole) {
            exchange.requestWritten();
        } else if (buffered != null) {
            buffered.writeTo(up, () -> !a.ended(), exchange::requestWritten);
        } else if (pending != null && !pending.isEmpty()) {
            for (HttpContent content; (content = pending.poll()) != null; ) {
                sendBody(up, content);
            }
        } else if (clientBodyDone) {
            // A replay of a request whose (empty) body already ended.
            sendBody(up, LastHttpContent.EMPTY_LAST_CONTENT);
        }
        up.flush();
        if (up.isWritable()) {
            resumeClient();
        }
    }

    private void sendBody(Channel up, HttpContent content) {
        bodyStreamed |= content.content().isReadable();
        up.write(content);
        if (content instanceof LastHttpContent) {
            exchange.requestWritten();
        } else if (!up.isWritable()) {
            pauseClient();
            exchange.upstreamBlocked();
        }
    }

    /** The upstream connection drained: more of the body may go. */
    void upstreamWritable() {
        if (buffered != null) {
            buffered.writable();
        } else {
            resumeClient();
        }
    }

    private void pauseClient() {
        if (!clientPaused && !clientBodyDone) {
            clientPaused = true;
            ReadGate.of(clientChannel).hold(ReadGate.Reason.UPSTREAM_BUSY);
        }
    }

    private void resumeClient() {
        if (clientPaused) {
            clientPaused = false;
            ReadGate.of(clientChannel).release(ReadGate.Reason.UPSTREAM_BUSY);
        }
    }

    /** The exchange ended: the buffered body and parked chunks are released, the client read again. */
    void release() {
        if (buffered != null) {
            buffered.release();
        }
        if (pending != null) {
            for (HttpContent c; (c = pending.poll()) != null; ) {
                c.release();
            }
        }
        resumeClient();
    }
}
