package io.portico.config;

import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;

/**
 * One certificate of a TLS listener, read and checked at load: its chain (leaf first), its private key, and the
 * host names it serves (its DNS subject alternative names, or its common name when it has none), which SNI
 * chooses it by.
 */
public record TlsCertificate(Path certFile, Path keyFile, List<X509Certificate> chain, PrivateKey key,
        List<String> names) {

    public X509Certificate leaf() {
        return chain.get(0);
    }

    @Override
    public String toString() {
        return certFile + " " + names;
    }
}
