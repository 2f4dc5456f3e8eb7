package io.portico.config;

import java.time.Duration;
import java.util.List;

/**
 * A listener that reads the PROXY protocol (v1 or v2) before HTTP or TLS, as HAProxy's {@code accept-proxy} and
 * nginx's {@code listen ... proxy_protocol}: only from a TCP peer in {@code trusted}, whose header must arrive
 * within {@code timeout}.
 */
public record ProxyProtocolConfig(List<Cidr> trusted, Duration timeout) {

    public ProxyProtocolConfig {
        trusted = List.copyOf(trusted);
    }

    @Override
    public String toString() {
        return "proxy-protocol from " + trusted;
    }
}
