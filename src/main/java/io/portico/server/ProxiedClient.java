package io.portico.server;

import io.netty.channel.Channel;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;

/**
 * The client a PROXY protocol header named for its connection: its address and port replace the TCP peer's
 * (HAProxy's {@code accept-proxy}), so limits, access rules, the access log, {@code $remote_addr} and the forwarding
 * headers all see the client rather than the balancer. {@code tls}: the balancer said (v2's SSL TLV) that the
 * client spoke TLS to it, so the scheme is https though this connection is plain.
 */
record ProxiedClient(InetSocketAddress address, boolean tls) {
    static final AttributeKey<ProxiedClient> KEY = AttributeKey.valueOf("portico.proxiedClient");

    /** The PROXY client of {@code channel}'s connection (an HTTP/2 stream's is its parent's), or null. */
    static ProxiedClient of(Channel channel) {
        Channel connection = channel instanceof Http2StreamChannel ? channel.parent() : channel;
        return connection.attr(KEY).get();
    }
}
