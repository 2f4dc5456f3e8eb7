package io.portico.tls;

/** The TLS engine the configuration asks for does not load on this machine. */
public final class TlsUnavailableException extends IllegalStateException {
    TlsUnavailableException(String message) {
        super(message);
    }
}
