package io.portico.exchange;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;

/**
 * The client side of the request in progress, as the server gives it to handlers after routing and to the
 * {@link Responder}. One per request; lives on the client channel's event loop.
 */
public interface ClientExchange {

    /** Where the server keeps the request in progress, for handlers that come after routing. */
    AttributeKey<ClientExchange> KEY = AttributeKey.valueOf("portico.clientExchange");

    /** The client connection. Responses are written to it; a LastHttpContent ends the response. */
    Channel channel();

    /** The location this request matched. */
    Route route();

    /** The request path as received, without the query, not decoded: for logs, never for decisions. */
    String rawPath();

    /**
     * The request's normalized path ({@link io.portico.config.RequestPath}), without the query: what routing,
     * access rules, rate limits, static files and the forwarded request all use; null when it was refused.
     */
    String path();

    /** The real client: the peer, or the right-most untrusted X-Forwarded-For address behind a trusted proxy. */
    InetSocketAddress clientAddress();

    /** The TCP peer of the connection, or the client a PROXY protocol header named for it. */
    InetSocketAddress peerAddress();

    /** The TCP peer's IP address as text (IPv6 unbracketed); the server's formats it once per connection. */
    default String peerIp() {
        return peerAddress().getAddress().getHostAddress();
    }

    /** Whether the peer is one of the trusted proxies, whose X-Forwarded-* headers may be believed. */
    boolean fromTrustedProxy();

    /**
     * Whether the client's connection is TLS: to Portico, or to the balancer in front that said so in its PROXY
     * header (v2's SSL TLV). What $scheme and the forwarding headers say.
     */
    boolean secure();

    /**
     * Whether a file may go to the client by sendfile (a {@code FileRegion}): not through TLS, and not on an
     * HTTP/2 stream, where it goes as chunks through the connection's ChunkedWriteHandler.
     */
    default boolean sendfile() {
        return !secure();
    }

    /**
     * Whether the request came on an HTTP/2 stream, where the request object (converted by Netty's stream codec)
     * still says HTTP/1.1: what {@code SERVER_PROTOCOL} and the access log must not believe.
     */
    default boolean http2() {
        return false;
    }

    /** The protocol as the client spoke it: {@code HTTP/2.0} on a stream, else the request line's version. */
    default String protocol(HttpRequest request) {
        return http2() ? "HTTP/2.0" : request.protocolVersion().text();
    }

    /** What the access log should say about this request beyond status and bytes. */
    RequestLog log();

    /**
     * Answers with the standard error page of {@code status} (HTML or text by the request's Accept), with
     * {@code headers} added; closes the connection afterwards when {@code close} is true or the request asked.
     * {@code headers} is copied, never modified: callers may pass an instance they share (a zone's rejection
     * headers).
     */
    void sendError(HttpResponseStatus status, HttpHeaders headers, boolean close);

    default void sendError(HttpResponseStatus status) {
        sendError(status, null, false);
    }

    /**
     * Refuses the request before anything has answered it (400, 403, 404, 413, 417, 421, 429, 503): the error page of
     * {@code status} with {@code headers}, then the rest of the request is dropped where it arrives (its body chunks
     * released by the server's exchange owner, so no stage after it sees them) and the connection kept, or closed
     * after the page when {@code close} (the request's framing or expectations are in doubt). The one way a stage or
     * a responder refuses a request; the caller still releases what it holds itself (the head). A client with no
     * connection behind it (a cache's background refresh) only answers.
     */
    default void refuse(HttpResponseStatus status, HttpHeaders headers, boolean close) {
        sendError(status, headers, close);
    }
}
