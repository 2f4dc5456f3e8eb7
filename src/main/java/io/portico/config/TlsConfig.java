package io.portico.config;

import java.time.Duration;
import java.util.List;

/**
 * A TLS listener's settings, validated at load: its certificates (the first is the default, the others are chosen
 * by SNI), the protocol versions and cipher suites it offers, and its handshake and session bounds.
 *
 * @param ciphers cipher suites in preference order, by their IANA names; empty means Portico's defaults
 */
public record TlsConfig(
        List<TlsCertificate> certificates,
        List<String> protocols,
        List<String> ciphers,
        Duration handshakeTimeout,
        Duration sessionTimeout,
        long sessionCacheSize,
        Provider provider) {

    /** Which TLS engine terminates: BoringSSL through netty-tcnative where it loads, else the JDK's. */
    public enum Provider {
        AUTO,
        OPENSSL,
        JDK
    }
}
