package io.portico.bench;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import javax.net.ssl.SSLException;

/**
 * The client side of https for one run: one {@link SslContext} for every connection, so a reconnect to the same
 * host and port offers the session the last connection got (resumption, as a browser does) and the per-connection
 * cost is the handshake only. BoringSSL through netty-tcnative where it loads, the JDK otherwise.
 *
 * <p>Certificates are verified against the JVM's trust store, host name included (what curl does), unless
 * {@code --insecure}. ALPN offers exactly what the run speaks: {@code h2} with --h2, {@code http/1.1} otherwise, so a
 * server offering both cannot pick the other one.
 */
final class ClientTls {

    private final SslContext context;

    private ClientTls(SslContext context) {
        this.context = context;
    }

    /** The context for {@code options}, or null when no target is https. */
    static ClientTls forOptions(BenchOptions options) {
        if (!options.tls()) {
            return null;
        }
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                            options.h2() ? ApplicationProtocolNames.HTTP_2 : ApplicationProtocolNames.HTTP_1_1));
            if (options.insecure()) {
                b.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
            } else {
                b.endpointIdentificationAlgorithm("HTTPS");
            }
            return new ClientTls(b.build());
        } catch (SSLException e) {
            throw new IllegalArgumentException("https: cannot set up TLS (" + e.getMessage() + ")", e);
        }
    }

    /** A handler for a new connection to {@code target}: SNI and the session cache keyed by its host and port. */
    SslHandler newHandler(ByteBufAllocator alloc, RequestTarget target) {
        // the peer host sets SNI (for a name, not an IP literal) and keys the client session cache
        return context.newHandler(alloc, target.sniHost(), target.port());
    }

    /**
     * A handshake failure as one line a user can act on: the deepest cause's message (the engines wrap it, BoringSSL
     * as "General OpenSslEngine problem"), and for an untrusted or misnamed certificate what to do about it.
     */
    static SSLException explain(Throwable failure) {
        Throwable root = failure;
        boolean certificate = false;
        for (Throwable c = failure; c != null; c = c.getCause()) {
            root = c;
            certificate |= c instanceof java.security.cert.CertificateException
                    || c instanceof java.security.cert.CertPathValidatorException
                    || c instanceof java.security.cert.CertPathBuilderException;
        }
        String message = String.valueOf(root.getMessage());
        if (certificate) {
            return new SSLException("the server's certificate is not trusted by this JVM's trust store or does not "
                    + "name the host (" + message + "); for a test certificate use --insecure", failure);
        }
        return new SSLException(message, failure);
    }

    /** What a finished handshake negotiated, e.g. "TLSv1.3 (TLS_AES_128_GCM_SHA256)". */
    static String describe(SslHandler h) {
        return h.engine().getSession().getProtocol() + " (" + h.engine().getSession().getCipherSuite() + ")";
    }
}
