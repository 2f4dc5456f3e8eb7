package io.portico.config;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * A header that tells the upstream who the client is and how it came (the location's {@code forwarded-headers}).
 * One not chosen is still never passed on from a client outside {@code trusted-proxies}: an app must not believe a
 * forwarding header Portico did not set or vouch for.
 */
public enum ForwardedHeader {
    X_FORWARDED_FOR("X-Forwarded-For"),
    X_REAL_IP("X-Real-IP"),
    X_FORWARDED_PROTO("X-Forwarded-Proto"),
    X_FORWARDED_HOST("X-Forwarded-Host"),
    FORWARDED("Forwarded");

    /** Every one: the default. */
    public static final Set<ForwardedHeader> ALL = Collections.unmodifiableSet(EnumSet.allOf(ForwardedHeader.class));

    /** The header's name as sent. */
    public final String header;

    ForwardedHeader(String header) {
        this.header = header;
    }

    /** The header a configured name means, in any letter case. */
    static Optional<ForwardedHeader> named(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (ForwardedHeader h : values()) {
            if (h.header.toLowerCase(Locale.ROOT).equals(lower)) {
                return Optional.of(h);
            }
        }
        return Optional.empty();
    }
}
