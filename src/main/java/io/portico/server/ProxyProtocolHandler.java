package io.portico.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyProtocolException;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.handler.codec.haproxy.HAProxySSLTLV;
import io.netty.handler.codec.haproxy.HAProxyTLV;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.Future;
import io.portico.config.Cidr;
import io.portico.config.ProxyProtocolConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits behind Netty's {@code HAProxyMessageDecoder} on a {@code proxy-protocol} listener, before TLS and HTTP: closes
 * a connection whose TCP peer is not {@code trusted}, whose header is malformed or missing (the decoder fails on
 * the first line that is not one) or does not arrive within the timeout, as nginx and HAProxy close rather than
 * answer (there is no HTTP yet to answer in). A good header's client becomes the connection's {@link ProxiedClient};
 * {@code PROXY UNKNOWN} and v2's LOCAL (a balancer's own health check) keep the TCP peer. The message is released
 * here; the decoder has already consumed the header's bytes and passes what follows to the next stage, then both
 * leave the pipeline.
 */
final class ProxyProtocolHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(ProxyProtocolHandler.class);

    private final ProxyProtocolConfig config;
    private final ProxyProtocolRefusals refusals;
    private Future<?> timeout;
    /** The connection was refused: whatever still arrives is dropped. */
    private boolean refused;

    ProxyProtocolHandler(ProxyProtocolConfig config, ProxyProtocolRefusals refusals) {
        this.config = config;
        this.refusals = refusals;
    }

    /** The log of one listener's refusals. */
    static ProxyProtocolRefusals refusals() {
        return new ProxyProtocolRefusals(log);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetSocketAddress peer = (InetSocketAddress) ctx.channel().remoteAddress();
        if (!Cidr.anyContains(config.trusted(), peer.getAddress())) {
            refuse(ctx, "not in the listener's trusted");
            return;
        }
        timeout = ctx.executor().schedule(() -> refuse(ctx, "no PROXY header within " + config.timeout().toMillis()
                + "ms"), config.timeout().toNanos(), TimeUnit.NANOSECONDS);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof HAProxyMessage header)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            ProxiedClient client = client(header);
            if (client != null) {
                ctx.channel().attr(ProxiedClient.KEY).set(client);
            }
        } finally {
            header.release();
        }
        cancelTimeout();
        ctx.pipeline().remove(this);
    }

    /** The header's client, or null to keep the TCP peer (LOCAL, UNKNOWN, and the families HTTP does not come by). */
    private static ProxiedClient client(HAProxyMessage header) {
        if (header.command() != HAProxyCommand.PROXY) {
            return null;
        }
        HAProxyProxiedProtocol p = header.proxiedProtocol();
        if (p != HAProxyProxiedProtocol.TCP4 && p != HAProxyProxiedProtocol.TCP6) {
            return null;
        }
        // The decoder checked the literal's syntax; this never looks a name up.
        InetAddress address = NetUtil.createInetAddressFromIpAddressString(header.sourceAddress());
        if (address == null) {
            return null;
        }
        boolean tls = false;
        for (HAProxyTLV tlv : header.tlvs()) {
            tls |= tlv instanceof HAProxySSLTLV ssl && ssl.isPP2ClientSSL();
        }
        return new ProxiedClient(new InetSocketAddress(address, header.sourcePort()), tls);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof HAProxyProtocolException) {
            Throwable why = cause;
            while (why.getCause() != null) { // the decoder wraps the parser's exception, whose text says what
                why = why.getCause();
            }
            refuse(ctx, "malformed PROXY header: " + why.getMessage());
        } else {
            ctx.fireExceptionCaught(cause);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelTimeout();
        ctx.fireChannelInactive();
    }

    private void refuse(ChannelHandlerContext ctx, String why) {
        if (refused) {
            return;
        }
        refused = true;
        cancelTimeout();
        refusals.note(ctx.channel().remoteAddress(), why);
        ctx.close();
    }

    private void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
