package io.portico.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import io.portico.config.ForwardedHeader;
import io.portico.config.TargetConfig;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The request fields a proxy location writes itself, so that the client's fields of those names are left out of
 * the forwarded head ({@link ForwardedHead}): its chosen forwarding headers, Via when it adds it, and every name of
 * its set-request-headers. From an untrusted client every forwarding header is owned (the unchosen ones are
 * dropped, not passed on); from a trusted proxy the unchosen ones pass as sent. Built once per location.
 */
record OwnedFields(AsciiString[] fromTrusted, AsciiString[] fromUntrusted) {
    static OwnedFields of(TargetConfig.Proxy target) {
        Set<AsciiString> common = new LinkedHashSet<>();
        if (target.via()) {
            common.add(HttpHeaderNames.VIA);
        }
        for (String name : target.setRequestHeaders().keySet()) {
            common.add(AsciiString.of(name));
        }
        Set<AsciiString> trusted = new LinkedHashSet<>(common);
        Set<AsciiString> untrusted = new LinkedHashSet<>(common);
        for (ForwardedHeader h : ForwardedHeader.values()) {
            untrusted.add(AsciiString.of(h.header));
            if (target.forwardedHeaders().contains(h)) {
                trusted.add(AsciiString.of(h.header));
            }
        }
        return new OwnedFields(trusted.toArray(AsciiString[]::new), untrusted.toArray(AsciiString[]::new));
    }

    AsciiString[] owned(boolean trusted) {
        return trusted ? fromTrusted : fromUntrusted;
    }

    static boolean contains(AsciiString[] names, CharSequence name) {
        int n = name.length();
        for (AsciiString o : names) {
            if (o.length() == n && o.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
