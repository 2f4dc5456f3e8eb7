package io.portico.proxy;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.portico.upstream.SocketErrors;
import io.portico.upstream.UpstreamServer;

/**
 * Why an exchange could not get a response head from an upstream, and the status the client gets for it when no
 * retry takes it (nginx's mapping: a timeout is 504, any other upstream error 502, a full queue 503).
 *
 * @param detail a few words on what happened (for the error log), never exception text
 */
record UpstreamFailure(Kind kind, String detail) {

    enum Kind {
        /** Refused, unreachable, reset during connect: nothing was sent. */
        CONNECT_ERROR(HttpResponseStatus.BAD_GATEWAY),
        /** No connection within {@code connect-timeout}: nothing was sent. */
        CONNECT_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT),
        /** Reset or closed after the request (or part of it) was written, before the response head. */
        CLOSED(HttpResponseStatus.BAD_GATEWAY),
        /** Nothing read for {@code read-timeout} before the response head. */
        READ_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT),
        /** The upstream took no request bytes for {@code send-timeout}. */
        SEND_TIMEOUT(HttpResponseStatus.GATEWAY_TIMEOUT),
        /** A response head that is not HTTP, too large, or a 101 nobody asked for. */
        MALFORMED(HttpResponseStatus.BAD_GATEWAY),
        /** No server usable (down, or all tried) before any attempt. */
        NO_LIVE_UPSTREAM(HttpResponseStatus.BAD_GATEWAY),
        /** {@code max-connections} reached everywhere and the queue full or timed out. */
        QUEUE_FULL(HttpResponseStatus.SERVICE_UNAVAILABLE);

        final HttpResponseStatus status;
        /** The {@code cause} label of the upstream failure and retry counters. */
        final String metricCause;

        Kind(HttpResponseStatus status) {
            this.status = status;
            this.metricCause = name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    static final UpstreamFailure NO_LIVE = new UpstreamFailure(Kind.NO_LIVE_UPSTREAM, "no live upstreams");

    HttpResponseStatus status() {
        return kind.status;
    }

    /** The access log note: {@code upstream_error="..."}, quoted so that a log parser reads it as one field. */
    String note() {
        return LogNotes.quoted("upstream_error", detail);
    }

    static UpstreamFailure connect(UpstreamServer server, Throwable cause) {
        Kind kind = cause instanceof ConnectTimeoutException ? Kind.CONNECT_TIMEOUT : Kind.CONNECT_ERROR;
        return new UpstreamFailure(kind, SocketErrors.connect(cause));
    }

    static UpstreamFailure closed(UpstreamServer server, Throwable cause) {
        return new UpstreamFailure(Kind.CLOSED, SocketErrors.connection(cause));
    }

    static UpstreamFailure readTimeout(UpstreamServer server) {
        return new UpstreamFailure(Kind.READ_TIMEOUT, "read timed out");
    }

    static UpstreamFailure sendTimeout(UpstreamServer server) {
        return new UpstreamFailure(Kind.SEND_TIMEOUT, "send timed out");
    }

    /** @param detail what is wrong with the response, in words (a decoder's message is cut and cleaned) */
    static UpstreamFailure malformed(String detail) {
        return new UpstreamFailure(Kind.MALFORMED, detail);
    }

    static UpstreamFailure queueFull(UpstreamServer server) {
        return new UpstreamFailure(Kind.QUEUE_FULL, "max-connections reached, queue full or timed out");
    }
}
