package io.portico.config;

import java.util.Optional;

/** One entry of {@code listen}: an address, plain HTTP, or TLS when {@code tls} is present. */
public record ListenerConfig(ListenAddress address, Optional<TlsConfig> tls) {

    public static ListenerConfig plain(ListenAddress address) {
        return new ListenerConfig(address, Optional.empty());
    }

    public boolean secure() {
        return tls.isPresent();
    }

    @Override
    public String toString() {
        return address + (tls.isPresent() ? " tls" : "");
    }
}
