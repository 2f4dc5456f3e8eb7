package io.portico.config;

import java.util.Optional;

/**
 * One entry of {@code listen}: an address, plain HTTP, or TLS when {@code tls} is present; {@code http2} says
 * whether it speaks HTTP/2 (over TLS through ALPN; on a plain listener, h2c with prior knowledge);
 * {@code proxyProtocol}, when present, that each connection starts with a PROXY protocol header from a balancer.
 */
public record ListenerConfig(ListenAddress address, Optional<TlsConfig> tls, boolean http2,
        Optional<ProxyProtocolConfig> proxyProtocol) {

    public ListenerConfig(ListenAddress address, Optional<TlsConfig> tls, boolean http2) {
        this(address, tls, http2, Optional.empty());
    }

    /** {@code http = auto}: HTTP/2 over TLS, HTTP/1.1 only on a plain listener (as nginx and Caddy default). */
    public enum Http2 {
        AUTO,
        ON,
        OFF
    }

    public static ListenerConfig plain(ListenAddress address) {
        return new ListenerConfig(address, Optional.empty(), false);
    }

    public boolean secure() {
        return tls.isPresent();
    }

    @Override
    public String toString() {
        return address + (tls.isPresent() ? " tls" : "") + (http2 ? " h2" : "")
                + (proxyProtocol.isPresent() ? " proxy-protocol" : "");
    }
}
