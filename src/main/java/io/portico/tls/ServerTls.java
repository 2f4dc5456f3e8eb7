package io.portico.tls;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.AttributeKey;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;
import io.portico.config.TlsCertificate;
import io.portico.config.TlsConfig;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;

/**
 * A TLS listener's server side, built once at start from its {@link TlsConfig}: one {@link SslContext} per
 * certificate, and the SNI mapping that picks one per connection by the name the client sent (exact names first,
 * then {@code *.} wildcards, one label deep, as browsers match them; a client that sends no name, or a name no
 * certificate has, gets the first certificate). ALPN offers {@code h2} then {@code http/1.1} on a listener that
 * speaks HTTP/2, {@code http/1.1} alone otherwise; a client that offers neither gets HTTP/1.1.
 */
public final class ServerTls {
    /** The host name a TLS connection's client sent in SNI, kept on the connection's channel; none without SNI. */
    public static final AttributeKey<String> SNI_HOST = AttributeKey.valueOf("portico.sniHost");
    /** Mozilla's "intermediate" TLSv1.2 suites, then TLSv1.3's three, which every TLSv1.3 client supports. */
    static final List<String> DEFAULT_CIPHERS = List.of(
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
            "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256");
    static final List<String> TLS13_CIPHERS =
            List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");

    private final Mapping<String, SslContext> mapping;
    private final SslProvider provider;
    private final long handshakeTimeoutMillis;
    private final String description;

    private ServerTls(Mapping<String, SslContext> mapping, SslProvider provider, long handshakeTimeoutMillis,
            String description) {
        this.mapping = mapping;
        this.provider = provider;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.description = description;
    }

    /**
     * @throws TlsUnavailableException when {@code provider = openssl} was asked for and netty-tcnative does not load
     * @throws SSLException when the TLS engine refuses a certificate, key or setting
     */
    public static ServerTls of(TlsConfig config, boolean http2) throws SSLException {
        SslProvider provider = provider(config.provider());
        List<String> ciphers = new ArrayList<>(config.ciphers().isEmpty() ? DEFAULT_CIPHERS : config.ciphers());
        ciphers.addAll(TLS13_CIPHERS);
        List<SslContext> contexts = new ArrayList<>();
        for (TlsCertificate cert : config.certificates()) {
            contexts.add(SslContextBuilder.forServer(cert.key(), cert.chain().toArray(new X509Certificate[0]))
                    .sslProvider(provider)
                    .protocols(config.protocols())
                    .ciphers(ciphers, SupportedCipherSuiteFilter.INSTANCE)
                    .sessionTimeout(config.sessionTimeout().toSeconds())
                    .sessionCacheSize(config.sessionCacheSize())
                    .applicationProtocolConfig(new ApplicationProtocolConfig(
                            ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            http2 ? List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
                                    : List.of(ApplicationProtocolNames.HTTP_1_1)))
                    .build());
        }
        DomainWildcardMappingBuilder<SslContext> builder = new DomainWildcardMappingBuilder<>(contexts.get(0));
        // Added in reverse so that a name two certificates share goes to the earlier one, as the first one wins.
        for (int i = config.certificates().size() - 1; i >= 0; i--) {
            for (String name : config.certificates().get(i).names()) {
                builder.add(name.toLowerCase(Locale.ROOT), contexts.get(i));
            }
        }
        String names = config.certificates().stream().map(c -> c.certFile().getFileName() + " " + c.names())
                .collect(Collectors.joining(", "));
        return new ServerTls(builder.build(), provider, config.handshakeTimeout().toMillis(),
                providerName(provider) + ", " + String.join("/", config.protocols()) + (http2 ? ", ALPN h2 and http/1.1"
                        : ", ALPN http/1.1") + ", certificates: " + names);
    }

    private static SslProvider provider(TlsConfig.Provider wanted) {
        return switch (wanted) {
            case JDK -> SslProvider.JDK;
            case OPENSSL -> {
                if (!OpenSsl.isAvailable()) {
                    throw new TlsUnavailableException("tls.provider = openssl, but netty-tcnative does not load here: "
                            + OpenSsl.unavailabilityCause());
                }
                yield SslProvider.OPENSSL;
            }
            case AUTO -> OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
        };
    }

    static String providerName(SslProvider provider) {
        return provider == SslProvider.JDK ? "the JDK's TLS" : OpenSsl.versionString() + " (netty-tcnative)";
    }

    /** The first handler of a connection: reads the ClientHello, then replaces itself with the chosen SslHandler. */
    public ChannelHandler newHandler(ByteBufAllocator alloc) {
        return new SniHandler(mapping, handshakeTimeoutMillis);
    }

    /** The engine in use: {@code openssl} or {@code jdk}. */
    public String provider() {
        return provider == SslProvider.JDK ? "jdk" : "openssl";
    }

    /** For the start-up log: the engine, the versions and each certificate with its names. */
    @Override
    public String toString() {
        return description;
    }
}
