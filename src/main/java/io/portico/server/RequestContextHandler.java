package io.portico.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedInput;
import io.portico.connection.ExchangeEvents;
import io.portico.connection.ExchangeObserver;
import io.portico.exchange.ClientExchange;
import io.portico.exchange.PerSecond;
import io.portico.exchange.Route;
import io.portico.metrics.AccessLog;
import io.portico.metrics.LocationMeters;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * Opens the record of each request ({@link RequestContext}, found by later handlers under
 * {@link ClientExchange#KEY}), counts the status and body bytes of its response, and writes the access log line
 * once the response has gone out: nginx "combined" plus request time and upstream time.
 */
final class RequestContextHandler extends ChannelDuplexHandler implements ExchangeObserver {
    private static final DateTimeFormatter TIME_LOCAL =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneId.systemDefault());
    /** nginx's [time_local], formatted once a second rather than once a line. */
    private static final PerSecond<String> TIME_LOCAL_NOW =
            new PerSecond<>(second -> TIME_LOCAL.format(Instant.ofEpochSecond(second)));
    private static final String HEX = "0123456789ABCDEF"; // nginx's case

    /** The generation of a request arriving now: taken once per request, kept in its record. */
    private final Supplier<Generation> generations;
    /** The listener this connection came on: its requests are routed by their generation's routers for it. */
    private final ListenerKey listener;
    private final AccessLog accessLog;
    private final boolean secure;
    private final boolean http2;
    // The connection's peer, its text and whether it is a trusted proxy: worked out on the first request rather
    // than on each.
    private InetSocketAddress peer;
    private String peerIp;
    private boolean trustedPeer;
    /** The generation whose trusted proxies {@link #trustedPeer} was decided by. */
    private Generation trustedBy;
    /** The balancer's PROXY header said the client spoke TLS to it (v2's SSL TLV). */
    private boolean proxiedTls;
    private RequestContext current;
    private Channel channel;
    /** {@code ssl_protocol=... ssl_cipher=...} of a TLS connection for its log lines, read once; else null. */
    private String tlsNote;

    /** @param http2 the handler is on an HTTP/2 stream's channel, whose requests Netty's codec made HTTP/1.1 */
    RequestContextHandler(Supplier<Generation> generations, ListenerKey listener, AccessLog accessLog, boolean secure,
            boolean http2) {
        this.generations = generations;
        this.listener = listener;
        this.accessLog = accessLog;
        this.secure = secure;
        this.http2 = http2;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            Generation generation = generations.get();
            if (peer == null) {
                // Behind a balancer that sent the PROXY protocol, the client it named is the peer: the one place
                // every later decision takes the client from (limits, access rules, logs, forwarding headers).
                ProxiedClient proxied = ProxiedClient.of(ctx.channel());
                peer = proxied != null ? proxied.address() : (InetSocketAddress) ctx.channel().remoteAddress();
                proxiedTls = proxied != null && proxied.tls();
                peerIp = peer.getAddress().getHostAddress();
            }
            if (trustedBy != generation) { // the first request, or the first after a reload
                trustedBy = generation;
                trustedPeer = generation.addresses.isTrusted(peer.getAddress());
            }
            InetSocketAddress client = generation.addresses.resolve(peer, trustedPeer, request.headers());
            if (secure && tlsNote == null && accessLog.enabled()) {
                tlsNote = tlsNote(ctx.channel());
            }
            current = new RequestContext(generation, listener, ctx.channel(), request, peer, peerIp, client,
                    trustedPeer, secure, proxiedTls, http2, accessLog.enabled());
            ctx.channel().attr(ClientExchange.KEY).set(current);
        }
        if (msg instanceof HttpContent content && current != null) {
            int n = content.content().readableBytes();
            if (n > 0) {
                current.bodyBytesRead += n;
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        RequestContext rc = current;
        if (rc != null && !HttpMessages.isInterim(msg)) {
            if (msg instanceof HttpResponse response) {
                rc.status = response.status().code();
                rc.responseStarted = true;
            }
            if (msg instanceof HttpContent content) {
                rc.bytes += content.content().readableBytes();
            } else if (msg instanceof FileRegion region) {
                rc.bytes += region.count();
            } else if (msg instanceof ChunkedInput<?> input && input.length() > 0) {
                rc.bytes += input.length();
            }
        }
        ctx.write(msg, promise);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.channel = ctx.channel();
        ExchangeEvents.of(channel).observe(this, accessLog.enabled());
    }

    @Override
    public void responseEnded(ChannelFuture written, boolean keepAlive) {
        RequestContext rc = current;
        if (rc == null) {
            return; // a response no request of this stage asked for (OPTIONS *, answered below)
        }
        count(rc);
        current = null;
        if (written != null && accessLog.enabled()) {
            written.addListener(f -> accessLog.log(line(rc, f.isSuccess(), tlsNote)));
        }
        // The request stayed visible while its last write passed the stages below (compression reads its
        // location); it goes now, unless a next request has already taken its place.
        channel.attr(ClientExchange.KEY).compareAndSet(rc, null);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        // The stages after this one first: the exchange that was waiting notes what it was waiting on (a proxy
        // its upstream's address, as nginx's $upstream_addr of a 499), then the line is written.
        ctx.fireChannelInactive();
        RequestContext rc = current; // still unanswered once they have heard of the close
        current = null;
        if (rc != null && accessLog.enabled()) {
            // The client left before its response was complete; nginx logs these as 499.
            if (!rc.responseStarted) {
                rc.status = 499;
            }
            accessLog.log(line(rc, false, tlsNote));
        }
        if (rc != null) {
            if (!rc.responseStarted) {
                rc.status = 499;
            }
            count(rc);
        }
    }

    /** The request's counters: once, when its response ends or its client leaves. */
    private void count(RequestContext rc) {
        Route route = rc.route();
        LocationMeters m = rc.generation().meters(route == null ? null : route.location());
        if (rc.bodyBytesRead > 0) {
            m.received(rc.bodyBytesRead);
        }
        m.answered(rc.request().method(), rc.status, System.nanoTime() - rc.startNanos(), rc.bytes);
    }

    /** The TLS version and cipher suite of the connection (an HTTP/2 stream's is its parent's), nginx's names. */
    private static String tlsNote(Channel channel) {
        Channel connection = channel instanceof Http2StreamChannel ? channel.parent() : channel;
        SslHandler ssl = connection.pipeline().get(SslHandler.class);
        if (ssl == null) {
            return null;
        }
        SSLSession session = ssl.engine().getSession();
        return "ssl_protocol=" + session.getProtocol() + " ssl_cipher=" + session.getCipherSuite();
    }

    private static String line(RequestContext rc, boolean complete, String tlsNote) {
        HttpRequest r = rc.request();
        StringBuilder b = new StringBuilder(200);
        b.append(rc.clientIp()).append(" - - [")
                .append(TIME_LOCAL_NOW.at(rc.startMillis() / 1000)).append("] \"")
                .append(r.method().name()).append(' ');
        appendEscaped(b, r.uri()).append(' ').append(rc.protocol())
                .append("\" ").append(rc.status).append(' ').append(rc.bytes).append(" \"");
        appendHeader(b, r, HttpHeaderNames.REFERER).append("\" \"");
        appendHeader(b, r, HttpHeaderNames.USER_AGENT).append("\" rt=");
        appendSeconds(b, System.nanoTime() - rc.startNanos())
                .append(" uaddr=").append(rc.log().upstream()).append(" urt=");
        for (int i = 0; i < rc.log().earlierUpstreams(); i++) { // nginx lists every server tried: "0.002, 0.010"
            appendUpstreamSeconds(b, rc.log().earlierUpstreamNanos(i)).append(", ");
        }
        appendUpstreamSeconds(b, rc.log().upstreamNanos());
        if (!rc.log().note().equals("-")) {
            b.append(' ').append(rc.log().note());
        }
        if (tlsNote != null) {
            b.append(' ').append(tlsNote);
        }
        if (!complete) {
            b.append(" incomplete");
        }
        return b.toString();
    }

    private static StringBuilder appendUpstreamSeconds(StringBuilder b, long nanos) {
        return nanos < 0 ? b.append('-') : appendSeconds(b, nanos);
    }

    private static StringBuilder appendHeader(StringBuilder b, HttpRequest r, CharSequence name) {
        String v = r.headers().get(name);
        return v == null ? b.append('-') : appendEscaped(b, v);
    }

    /**
     * As nginx escapes variables in its log (escape=default): a quote, a backslash and any byte outside printable
     * ASCII become \xXX, so a client cannot end a quoted field early or forge a line.
     */
    static StringBuilder appendEscaped(StringBuilder b, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\' || c < 0x20 || c > 0x7e) {
                int v = c > 0xff ? '?' : c;
                b.append("\\x").append(HEX.charAt(v >> 4)).append(HEX.charAt(v & 0xf));
            } else {
                b.append(c);
            }
        }
        return b;
    }

    /** Seconds with milliseconds, as nginx's $request_time: "0.004". (String.format cost ~0.6 us a call here.) */
    static StringBuilder appendSeconds(StringBuilder b, long nanos) {
        long millis = Math.max(0, nanos) / 1_000_000;
        long fraction = millis % 1000;
        b.append(millis / 1000).append('.');
        if (fraction < 100) {
            b.append(fraction < 10 ? "00" : "0");
        }
        return b.append(fraction);
    }
}
