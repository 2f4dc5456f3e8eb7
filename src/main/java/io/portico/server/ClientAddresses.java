package io.portico.server;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.NetUtil;
import io.portico.config.Cidr;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * Who the client really is (nginx real_ip): the TCP peer, or, when the peer is a trusted proxy, the right-most
 * address of X-Forwarded-For that is not itself trusted. A header from anyone else is never believed.
 */
final class ClientAddresses {
    private final List<Cidr> trusted;

    ClientAddresses(List<Cidr> trusted) {
        this.trusted = trusted;
    }

    boolean isTrusted(InetAddress address) {
        return Cidr.anyContains(trusted, address);
    }

    /** @param peerTrusted {@link #isTrusted} of the peer, which the caller knows for the whole connection */
    InetSocketAddress resolve(InetSocketAddress peer, boolean peerTrusted, HttpHeaders headers) {
        if (!peerTrusted) {
            return peer;
        }
        List<String> values = headers.getAll("X-Forwarded-For");
        for (int v = values.size() - 1; v >= 0; v--) {
            String[] hops = values.get(v).split(",");
            for (int i = hops.length - 1; i >= 0; i--) {
                String hop = hops[i].trim();
                // Literal addresses only: a header must never trigger a DNS lookup.
                byte[] bytes = NetUtil.createByteArrayFromIpAddressString(hop);
                if (bytes == null) {
                    return peer;
                }
                InetAddress address;
                try {
                    address = InetAddress.getByAddress(bytes);
                } catch (java.net.UnknownHostException e) {
                    return peer;
                }
                if (!isTrusted(address)) {
                    return new InetSocketAddress(address, 0);
                }
            }
        }
        return peer;
    }
}
