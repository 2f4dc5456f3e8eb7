package io.portico.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLContext;

/**
 * Reads {@code listen}: "host:port" strings, or objects {@code { address = "...", tls { ... } }} over
 * {@code defaults.tls}. Certificates and keys are read and checked here, at load, so a missing or unreadable file, a
 * key that is not the certificate's and an expired certificate are each a problem with its file and line, and
 * {@code portico check} reports them before a server would fail its first handshake.
 */
final class ListenerReader {
    private static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");

    private final Node root;
    private final Config defaults;
    private final Paths paths;
    private final Instant now;

    ListenerReader(Node root, Config defaults, Paths paths, Instant now) {
        this.root = root;
        this.defaults = defaults;
        this.paths = paths;
        this.now = now;
    }

    List<ListenerConfig> readAll() {
        List<ListenerConfig> out = new ArrayList<>();
        if (root.valueType("listen") == ConfigValueType.STRING) {
            plain(root, "listen", root.string("listen")).ifPresent(out::add);
        } else {
            List<ConfigValue> list = root.list("listen");
            for (int i = 0; i < list.size(); i++) {
                ConfigValue v = list.get(i);
                String key = root.key("listen") + "." + i;
                if (v.valueType() == ConfigValueType.STRING) {
                    plain(root, "listen", (String) v.unwrapped()).ifPresent(out::add);
                } else if (v.valueType() == ConfigValueType.OBJECT) {
                    Node n = root.element((ConfigObject) v, key, defaults.getConfig("listener"));
                    listener(n).ifPresent(out::add);
                    n.finish();
                } else {
                    root.problem("listen", "wrong type (expected: \"host:port\" or { address = \"host:port\", tls { ... } })");
                }
            }
            if (list.isEmpty()) {
                root.problem("listen", "no address (expected: at least one \"host:port\")");
            }
        }
        return List.copyOf(out);
    }

    private Optional<ListenerConfig> plain(Node n, String key, String text) {
        List<String> words = List.of(text.strip().split("\\s+"));
        if (words.size() > 1) {
            // nginx's "listen 443 ssl http2 default_server": Portico has no listen parameters.
            n.problem(key, "'" + text + "': " + (words.contains("ssl")
                    ? "TLS is set as an object (expected: { address = \"" + words.get(0) + "\", tls { certificates ="
                            + " [ { cert = \"/path/cert.pem\", key = \"/path/key.pem\" } ] } })"
                    : "listen takes no parameters (expected: \"host:port\", \"[::1]:port\" or \"*:port\")"));
            return Optional.empty();
        }
        return address(n, key, text).map(ListenerConfig::plain);
    }

    private static Optional<ListenAddress> address(Node n, String key, String text) {
        try {
            return Optional.of(Addresses.listen(text));
        } catch (IllegalArgumentException e) {
            n.problem(key, "'" + text + "' " + e.getMessage() + " (expected: \"host:port\", \"[::1]:port\" or \"*:port\")");
            return Optional.empty();
        }
    }

    private Optional<ListenerConfig> listener(Node n) {
        Optional<ListenAddress> address = address(n, "address", n.string("address"));
        Optional<TlsConfig> tls = n.object("tls", defaults.getConfig("tls")).map(this::tls);
        ListenerConfig.Http2 http2 = n.enumValue("http2", ListenerConfig.Http2.class, ListenerConfig.Http2.AUTO);
        if (n.isSet("tls") && tls.isEmpty()) {
            return Optional.empty();
        }
        boolean speaksHttp2 = http2 == ListenerConfig.Http2.ON || (http2 == ListenerConfig.Http2.AUTO && tls.isPresent());
        Optional<ProxyProtocolConfig> proxyProtocol = proxyProtocol(n);
        return address.map(a -> new ListenerConfig(a, tls, speaksHttp2, proxyProtocol));
    }

    /**
     * {@code proxy-protocol = true} needs {@code trusted}: nginx and HAProxy take a PROXY header from any peer and
     * leave the firewall to keep clients out, but a client that reaches such a port names any address it likes
     * and walks past every per-client limit and access rule. Accepting any peer is still possible, by saying so
     * ({@code ["0.0.0.0/0", "::/0"]}).
     */
    private static Optional<ProxyProtocolConfig> proxyProtocol(Node n) {
        boolean on = n.bool("proxy-protocol");
        List<Cidr> trusted = ConfigLoader.readCidrs(n, "trusted");
        Duration timeout = n.duration("proxy-protocol-timeout", Duration.ofMillis(1));
        if (!on) {
            if (n.userSet("trusted")) {
                n.problem("trusted", "applies only with proxy-protocol = true (expected: proxy-protocol = true beside"
                        + " it; the proxies whose X-Forwarded-For is believed are the top level's trusted-proxies)");
            }
            return Optional.empty();
        }
        if (n.strings("trusted").isEmpty()) {
            n.problem("proxy-protocol", "true without trusted: any client could name any address in a PROXY header"
                    + " (expected: trusted = the balancers' CIDRs, e.g. [\"10.0.0.0/8\"], or [\"0.0.0.0/0\", \"::/0\"]"
                    + " to take it from anyone, as nginx does)");
            return Optional.empty();
        }
        return Optional.of(new ProxyProtocolConfig(trusted, timeout));
    }

    private TlsConfig tls(Node t) {
        List<TlsCertificate> certificates = new ArrayList<>();
        List<ConfigValue> list = t.list("certificates");
        for (int i = 0; i < list.size(); i++) {
            ConfigValue v = list.get(i);
            if (v.valueType() != ConfigValueType.OBJECT) {
                t.problem("certificates", "wrong type (expected: { cert = \"/path/chain.pem\", key = \"/path/key.pem\" })");
                continue;
            }
            Node c = t.element((ConfigObject) v, t.key("certificates") + "." + i, defaults.getConfig("tls-certificate"));
            certificate(c).ifPresent(certificates::add);
            c.finish();
        }
        if (list.isEmpty()) {
            t.problem("certificates", "no certificate (expected: at least one { cert = \"...\", key = \"...\" })");
        }
        List<String> protocols = t.strings("protocols");
        for (String p : protocols) {
            if (!PROTOCOLS.contains(p)) {
                t.problem("protocols", "'" + p + "' (expected: some of TLSv1.2, TLSv1.3; older versions are insecure)");
            }
        }
        if (protocols.isEmpty()) {
            t.problem("protocols", "none (expected: some of TLSv1.2, TLSv1.3)");
        }
        List<String> ciphers = t.strings("ciphers");
        Set<String> known = knownCiphers();
        for (String c : ciphers) {
            if (!known.contains(c)) {
                t.problem("ciphers", "'" + c + "' is not a cipher suite this JVM knows (expected: IANA names such as"
                        + " TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)");
            }
        }
        Duration handshake = t.duration("handshake-timeout", Duration.ofMillis(1));
        Duration session = t.duration("session-timeout", Duration.ofSeconds(1));
        long cacheSize = t.integer("session-cache-size", 0, 10_000_000);
        TlsConfig.Provider provider = t.enumValue("provider", TlsConfig.Provider.class, TlsConfig.Provider.AUTO);
        t.finish();
        return new TlsConfig(List.copyOf(certificates), List.copyOf(protocols), List.copyOf(ciphers), handshake,
                session, cacheSize, provider);
    }

    private Optional<TlsCertificate> certificate(Node c) {
        Path certFile = paths.resolve(c.string("cert"));
        Path keyFile = paths.resolve(c.string("key"));
        List<X509Certificate> chain = read(c, "cert", certFile, "a PEM certificate chain", PemFiles::certificates);
        PrivateKey key = read(c, "key", keyFile, "a PEM private key", PemFiles::privateKey);
        if (chain == null || key == null) {
            return Optional.empty();
        }
        X509Certificate leaf = chain.get(0);
        if (!PemFiles.matches(key, leaf)) {
            c.problem("key", keyFile + " is not the key of " + certFile
                    + " (expected: the private key the certificate was issued for)");
            return Optional.empty();
        }
        if (leaf.getNotAfter().toInstant().isBefore(now)) {
            c.problem("cert", certFile + " expired on " + leaf.getNotAfter().toInstant()
                    + " (expected: a certificate valid now)");
            return Optional.empty();
        }
        List<String> names = names(leaf);
        if (names.isEmpty()) {
            c.problem("cert", certFile + " names no host (expected: DNS subject alternative names or a common name)");
        }
        return Optional.of(new TlsCertificate(certFile, keyFile, chain, key, names));
    }

    private interface Reader<T> {
        T read(Path file) throws IOException, GeneralSecurityException;
    }

    private static <T> T read(Node c, String key, Path file, String expected, Reader<T> reader) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            c.problem(key, file + (Files.exists(file) ? " cannot be read" : " does not exist")
                    + " (expected: " + expected + ")");
            return null;
        }
        try {
            return reader.read(file);
        } catch (IOException | GeneralSecurityException e) {
            c.problem(key, file + ": " + e.getMessage() + " (expected: " + expected + ")");
            return null;
        }
    }

    /** The DNS names SNI can choose this certificate by, lower-cased: SANs, else the subject's CN. */
    static List<String> names(X509Certificate cert) {
        List<String> out = new ArrayList<>();
        try {
            Collection<List<?>> sans = cert.getSubjectAlternativeNames();
            if (sans != null) {
                for (List<?> san : sans) {
                    if (Integer.valueOf(2).equals(san.get(0))) {
                        out.add(((String) san.get(1)).toLowerCase(Locale.ROOT));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            return out;
        }
        if (out.isEmpty()) {
            try {
                for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
                    if (rdn.getType().equalsIgnoreCase("CN")) {
                        out.add(String.valueOf(rdn.getValue()).toLowerCase(Locale.ROOT));
                    }
                }
            } catch (InvalidNameException e) {
                return out;
            }
        }
        return List.copyOf(out);
    }

    private static Set<String> knownCiphers() {
        try {
            return Set.of(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
        } catch (GeneralSecurityException e) {
            return Set.of();
        }
    }
}
