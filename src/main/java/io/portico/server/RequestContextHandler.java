package io.portico.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.stream.ChunkedInput;
import io.portico.metrics.AccessLog;
import io.portico.route.ClientExchange;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Opens the record of each request ({@link RequestContext}, found by later handlers under
 * {@link ClientExchange#KEY}), counts the status and body bytes of its response, and writes the access log line
 * once the response has gone out: nginx "combined" plus request time and upstream time.
 */
final class RequestContextHandler extends ChannelDuplexHandler {
    private static final DateTimeFormatter TIME_LOCAL =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneId.systemDefault());

    private final ClientAddresses addresses;
    private final AccessLog accessLog;
    private final boolean secure;
    private RequestContext current;

    RequestContextHandler(ClientAddresses addresses, AccessLog accessLog, boolean secure) {
        this.addresses = addresses;
        this.accessLog = accessLog;
        this.secure = secure;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest request) {
            InetSocketAddress peer = (InetSocketAddress) ctx.channel().remoteAddress();
            boolean trusted = addresses.isTrusted(peer.getAddress());
            InetSocketAddress client = addresses.resolve(peer, request.headers());
            current = new RequestContext(ctx.channel(), request, peer, client, trusted, secure);
            ctx.channel().attr(ClientExchange.KEY).set(current);
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
            if (HttpMessages.endsResponse(msg)) {
                current = null;
                ctx.channel().attr(ClientExchange.KEY).set(null);
                if (accessLog.enabled()) {
                    ctx.write(msg, promise.unvoid()).addListener(f -> accessLog.log(line(rc, f.isSuccess())));
                    return;
                }
            }
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        RequestContext rc = current;
        if (rc != null && accessLog.enabled()) {
            // The client left before its response was complete; nginx logs these as 499.
            if (!rc.responseStarted) {
                rc.status = 499;
            }
            accessLog.log(line(rc, false));
        }
        current = null;
        ctx.fireChannelInactive();
    }

    private static String line(RequestContext rc, boolean complete) {
        HttpRequest r = rc.request();
        StringBuilder b = new StringBuilder(200);
        b.append(rc.clientAddress().getAddress().getHostAddress()).append(" - - [")
                .append(TIME_LOCAL.format(Instant.ofEpochMilli(rc.startMillis()))).append("] \"")
                .append(r.method().name()).append(' ').append(r.uri()).append(' ').append(r.protocolVersion().text())
                .append("\" ").append(rc.status).append(' ').append(rc.bytes).append(" \"")
                .append(header(r, HttpHeaderNames.REFERER.toString())).append("\" \"")
                .append(header(r, HttpHeaderNames.USER_AGENT.toString())).append("\" rt=")
                .append(seconds(System.nanoTime() - rc.startNanos())).append(" uaddr=")
                .append(rc.log().upstream()).append(" urt=")
                .append(rc.log().upstreamNanos() < 0 ? "-" : seconds(rc.log().upstreamNanos()));
        if (!rc.log().note().equals("-")) {
            b.append(' ').append(rc.log().note());
        }
        if (!complete) {
            b.append(" incomplete");
        }
        return b.toString();
    }

    private static String header(HttpRequest r, String name) {
        String v = r.headers().get(name);
        return v == null ? "-" : v.replace("\"", "\\\"");
    }

    private static String seconds(long nanos) {
        long micros = nanos / 1000;
        return String.format(Locale.ROOT, "%d.%03d", micros / 1_000_000, (micros / 1000) % 1000);
    }
}
