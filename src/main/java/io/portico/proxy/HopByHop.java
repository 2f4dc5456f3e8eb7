package io.portico.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Map;

/**
 * Hop-by-hop headers (RFC 9110 section 7.6.1): they describe one connection, so a proxy removes them in both
 * directions, together with every header the {@code Connection} header names (as Caddy's removeConnectionHeaders).
 */
final class HopByHop {
    /** The index of Connection in {@link #ALWAYS}: the one whose values name more headers to remove. */
    private static final int CONNECTION = 0;
    private static final AsciiString[] ALWAYS = {
            HttpHeaderNames.CONNECTION,
            HttpHeaderNames.KEEP_ALIVE,
            HttpHeaderNames.PROXY_CONNECTION,
            HttpHeaderNames.PROXY_AUTHENTICATE,
            HttpHeaderNames.TE,
            HttpHeaderNames.TRAILER,
            HttpHeaderNames.TRANSFER_ENCODING,
            HttpHeaderNames.UPGRADE};

    private HopByHop() {}

    /** Whether {@code name} is hop-by-hop whatever the Connection header says. */
    static boolean always(CharSequence name) {
        return indexOf(name) >= 0;
    }

    /** Removes the hop-by-hop headers of a head in place. */
    static void remove(HttpHeaders headers) {
        // Find the ones present in one pass over the names: a head carries one or two of the eight, and removing
        // an absent one costs a hash lookup all the same.
        int present = 0;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            int i = indexOf(it.next().getKey());
            if (i >= 0) {
                present |= 1 << i;
            }
        }
        if (present == 0) {
            return;
        }
        if ((present & 1 << CONNECTION) != 0) {
            removeNamedBy(headers, headers);
        }
        for (int i = 0; i < ALWAYS.length; i++) {
            if ((present & 1 << i) != 0) {
                headers.remove(ALWAYS[i]);
            }
        }
    }

    /** Removes from {@code target} every header that {@code source}'s Connection header names. */
    static void removeNamedBy(HttpHeaders source, HttpHeaders target) {
        for (String value : source.getAll(HttpHeaderNames.CONNECTION)) {
            for (String name : value.split(",")) {
                String n = name.trim();
                if (!n.isEmpty()) {
                    target.remove(n);
                }
            }
        }
    }

    /** Whether the request asks to upgrade to WebSocket, the one upgrade Portico relays. */
    static boolean isWebSocketUpgrade(HttpHeaders headers) {
        return headers.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderNames.UPGRADE, true)
                && headers.contains(HttpHeaderNames.UPGRADE, "websocket", true);
    }

    private static int indexOf(CharSequence name) {
        int length = name.length();
        for (int i = 0; i < ALWAYS.length; i++) {
            if (ALWAYS[i].length() == length && ALWAYS[i].contentEqualsIgnoreCase(name)) {
                return i;
            }
        }
        return -1;
    }
}
