package io.portico.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.List;

/**
 * Hop-by-hop headers (RFC 9110 section 7.6.1): they describe one connection, so a proxy removes them in both
 * directions, together with every header the {@code Connection} header names (as Caddy's removeConnectionHeaders).
 */
final class HopByHop {
    private static final List<AsciiString> ALWAYS = List.of(
            HttpHeaderNames.CONNECTION,
            HttpHeaderNames.KEEP_ALIVE,
            HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.PROXY_AUTHENTICATE,
            HttpHeaderNames.TE,
            HttpHeaderNames.TRAILER,
            HttpHeaderNames.TRANSFER_ENCODING,
            HttpHeaderNames.UPGRADE);

    private HopByHop() {}

    static void remove(HttpHeaders headers) {
        for (String value : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String name : value.split(",")) {
                String n = name.trim();
                if (!n.isEmpty()) {
                    headers.remove(n);
                }
            }
        }
        for (AsciiString name : ALWAYS) {
            headers.remove(name);
        }
    }

    /** Whether the request asks to upgrade to WebSocket, the one upgrade Portico relays. */
    static boolean isWebSocketUpgrade(HttpHeaders headers) {
        return headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderNames.UPGRADE, true)
                && headers.contains(HttpHeaderNames.UPGRADE, "websocket", true);
    }
}
